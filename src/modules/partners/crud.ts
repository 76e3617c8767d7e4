import { defineCrud } from '../../unit-of-work/index.js';
import { PartnerCreate, PartnerSchema, PartnerUpdate } from './schemas.js';
import { partnerService } from './service.js';

export const partnerCrud = defineCrud({
  name: 'Partner',
  plural: 'Partners',
  path: '/admin/partners',
  tag: 'Catalog admin',
  about:
    'A partner (a reseller, a marketplace) is named by its `code` in price rules, offers and pricing contexts ' +
    '(`partner`): a rule or offer naming an unknown code is refused, and a price asked for an unknown one carries an ' +
    '`unknown_partner` warning. Deleting a partner that rules or offers name is 409; set it inactive instead.',
  schema: PartnerSchema,
  createBody: PartnerCreate,
  updateBody: PartnerUpdate,
  audit: {
    resourceType: 'partner',
    create: 'partner.create',
    update: 'partner.update',
    delete: 'partner.delete',
  },
  service: partnerService,
});
