import { Type } from 'typebox';
import { StringEnum } from '../../core/schema.js';

const PartnerStatus = StringEnum(['active', 'inactive'], {
  description: 'An inactive partner is still known (its rules stay), shown as such to operators.',
});
const Code = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'The value price rules, offers and pricing contexts use as `partner`; unique in the tenant.',
});
const Name = Type.String({ minLength: 1, maxLength: 200, description: 'How operators know the partner.' });

export const PartnerSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  code: Type.String(),
  status: PartnerStatus,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const PartnerCreate = Type.Object(
  { name: Name, code: Code, status: Type.Optional(PartnerStatus) },
  { additionalProperties: false, examples: [{ name: 'Acme Reseller', code: 'acme', status: 'active' }] },
);

export const PartnerUpdate = Type.Object(
  { name: Type.Optional(Name), status: Type.Optional(PartnerStatus) },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'The code cannot change: price rules and contexts name the partner by it.',
    examples: [{ status: 'inactive' }],
  },
);

/** A note on a response that is not an error: e.g. a pricing context naming an unknown partner. */
export const WarningSchema = Type.Object({
  code: StringEnum(['unknown_partner']),
  field: Type.String({ description: 'The input it is about, e.g. `partner` or `customerContext.partner`.' }),
  message: Type.String(),
});
