export { createIdentityService, ssoOptionsFromConfig, API_KEY_PREFIX, type IdentityService, type IdentityOptions, type SignInFact, type SsoOptions } from './service.js';
export { hashPassword, verifyPassword, type ScryptParams } from './passwords.js';
