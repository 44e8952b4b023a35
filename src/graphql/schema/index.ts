// Imports every type module (each registers its types, queries and mutations) and builds the schema.
import { builder } from '../builder.js';
import './organization.js';

export const schema = builder.toSchema({ sortSchema: true });
