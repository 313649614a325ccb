export { createIdentityService, API_KEY_PREFIX, type IdentityService, type IdentityOptions } from './service.js';
export { hashPassword, verifyPassword, type ScryptParams } from './passwords.js';
