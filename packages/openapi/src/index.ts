export { buildDocument, type DocumentedRoute, type DocumentOptions, operationId } from './document.ts';
export { type Json, laterArrayItems, schemaOf } from './json-schema.ts';
export { type ReferenceOptions, renderReference } from './reference.ts';
