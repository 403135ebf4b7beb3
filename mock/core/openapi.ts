// The served OpenAPI document: built in mock/core/openapi/ (index: operations; parameters; responses:
// every status an operation answers; security: the schemes; links: between operations).
export { buildOpenApi, endpointsOf, ENDPOINTS, type Endpoint, type OpenApiOptions } from './openapi/index.ts'
