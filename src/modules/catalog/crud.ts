import { type AnyCrudSpec, defineCrud } from '../../unit-of-work/index.js';
import { planChangeRuleService, planLinkService } from './plans.js';
import { productService } from './products.js';
import { offerService, priceRuleService, promotionService } from './rules.js';
import {
  OfferCreate,
  OfferSchema,
  OfferUpdate,
  PlanChangeRuleCreate,
  PlanChangeRuleSchema,
  PlanChangeRuleUpdate,
  PlanLinkCreate,
  PlanLinkSchema,
  PlanLinkUpdate,
  PriceRuleCreate,
  PriceRuleSchema,
  PriceRuleUpdate,
  ProductCreate,
  ProductSchema,
  ProductUpdate,
  PromotionCreate,
  PromotionSchema,
  PromotionUpdate,
} from './schemas.js';

// The catalog's admin resources as generic CRUD specs: the admin routes and the seed loader read them.

const TAG = 'Catalog admin';

const audit = <R extends 'product' | 'price_rule' | 'offer' | 'promotion' | 'plan_link' | 'plan_change_rule'>(
  resource: R,
) =>
  ({
    resourceType: resource,
    create: `${resource}.create`,
    update: `${resource}.update`,
    delete: `${resource}.delete`,
  }) as const;

export const productCrud = defineCrud({
  name: 'Product',
  plural: 'Products',
  path: '/admin/products',
  tag: TAG,
  about:
    'A product is what customers buy: a one-time item, a subscription plan (with a billing interval, and a family ' +
    'and rank for plan changes) or an add-on; its price is the sum of its charges (modeled tiers, or passthrough ' +
    'charges quoted live by the billing system), and it grants entitlements.',
  schema: ProductSchema,
  createBody: ProductCreate,
  updateBody: ProductUpdate,
  audit: audit('product'),
  service: productService,
});

export const priceRuleCrud = defineCrud({
  name: 'PriceRule',
  plural: 'PriceRules',
  path: '/admin/price-rules',
  tag: TAG,
  about:
    'A price rule replaces the tiers (and optionally the model) of one modeled charge for customers matching its ' +
    'segment, locale and/or partner. When several match, the one setting the most of these wins; ties go to ' +
    'partner, then segment, then locale, then the newest rule.',
  schema: PriceRuleSchema,
  createBody: PriceRuleCreate,
  updateBody: PriceRuleUpdate,
  audit: audit('price_rule'),
  service: priceRuleService,
});

export const offerCrud = defineCrud({
  name: 'Offer',
  plural: 'Offers',
  path: '/admin/offers',
  tag: TAG,
  about:
    'An offer is a time-windowed discount (percent or amount) on one product, optionally only for a segment or ' +
    'partner; it is active while now is in [startsAt, endsAt). Percent offers apply before amount offers.',
  schema: OfferSchema,
  createBody: OfferCreate,
  updateBody: OfferUpdate,
  audit: audit('offer'),
  service: offerService,
});

export const promotionCrud = defineCrud({
  name: 'Promotion',
  plural: 'Promotions',
  path: '/admin/promotions',
  tag: TAG,
  about:
    'A promotion is a cart promo code (case-insensitive): percent or amount off the cart subtotal after offers, ' +
    'with an optional minimum subtotal, validity window and usage limit; it never takes a total below zero.',
  schema: PromotionSchema,
  createBody: PromotionCreate,
  updateBody: PromotionUpdate,
  audit: audit('promotion'),
  service: promotionService,
});

export const planLinkCrud = defineCrud({
  name: 'PlanLink',
  plural: 'PlanLinks',
  path: '/admin/plan-links',
  tag: TAG,
  about:
    'A plan link says that, on a change from the source plan to the target plan, a field of the target charge ' +
    'follows the source charge (e.g. seats carry over); plan-change previews list the links that apply.',
  schema: PlanLinkSchema,
  createBody: PlanLinkCreate,
  updateBody: PlanLinkUpdate,
  audit: audit('plan_link'),
  service: planLinkService,
});

export const planChangeRuleCrud = defineCrud({
  name: 'PlanChangeRule',
  plural: 'PlanChangeRules',
  path: '/admin/plan-change-rules',
  tag: TAG,
  about:
    'A plan-change rule sets when a plan change takes effect (`immediate` or `end_of_period`) and how it is ' +
    'prorated (`prorated`, `none`, `full_credit`), for one product pair or for a family (optionally one ' +
    'direction). Without a matching rule: upgrades are immediate and prorated, downgrades wait for the period ' +
    'end without proration, lateral changes are immediate and prorated.',
  schema: PlanChangeRuleSchema,
  createBody: PlanChangeRuleCreate,
  updateBody: PlanChangeRuleUpdate,
  audit: audit('plan_change_rule'),
  service: planChangeRuleService,
});

/** The catalog's admin resources, in dependency order (the seed loader follows it). */
export const catalogCrudSpecs: AnyCrudSpec[] = [
  productCrud,
  priceRuleCrud,
  offerCrud,
  promotionCrud,
  planLinkCrud,
  planChangeRuleCrud,
];
