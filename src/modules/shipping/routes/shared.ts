import { next } from '../../../http/envelope.js';

// The catalog and carts land in later modules; the hints are the next steps an agent takes after choosing shipping.
export const listActions = [next('catalog', 'getCatalog'), next('createCart', 'createCart')];
