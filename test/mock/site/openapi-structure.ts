// A compact structural schema of OpenAPI 3.1 for the parts buildOpenApi emits (stricter than the full
// specification where we know what we emit, e.g. no $ref responses), written from the specification's
// object definitions (no download). Shared by the openapi tests; not a test file itself.

const ext = { '^x-': true }
const mediaTypes = {
  type: 'object',
  minProperties: 1,
  propertyNames: { pattern: '^[a-z]+/[a-z0-9.+-]+$' },
  additionalProperties: {
    type: 'object',
    properties: { schema: { type: ['object', 'boolean'] }, example: true, examples: { type: 'object' } },
    required: ['schema'],
    additionalProperties: false,
  },
}
const securityRequirement = { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }
const url = { type: 'string', minLength: 1 }
const scopes = { type: 'object', additionalProperties: { type: 'string' } }

/** An OAuth Flow Object with the URLs its flow requires. */
const flow = (...urls: string[]) => ({
  type: 'object',
  properties: { authorizationUrl: url, tokenUrl: url, refreshUrl: url, scopes },
  required: [...urls, 'scopes'],
  additionalProperties: false,
  patternProperties: ext,
})

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

export const OPENAPI_31 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
    info: {
      type: 'object',
      required: ['title', 'version'],
      properties: { title: { type: 'string', minLength: 1 }, version: { type: 'string', minLength: 1 }, description: { type: 'string' } },
      additionalProperties: false,
      patternProperties: ext,
    },
    servers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['url'],
        properties: { url: { type: 'string' }, description: { type: 'string' } },
        additionalProperties: false,
      },
    },
    tags: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, description: { type: 'string' } },
        additionalProperties: false,
      },
    },
    paths: {
      type: 'object',
      propertyNames: { pattern: '^/' },
      additionalProperties: { $ref: '#/$defs/PathItem' },
    },
    components: {
      type: 'object',
      properties: {
        schemas: { type: 'object', additionalProperties: { type: ['object', 'boolean'] } },
        securitySchemes: {
          type: 'object',
          propertyNames: { pattern: '^[a-zA-Z0-9.\\-_]+$' },
          additionalProperties: { $ref: '#/$defs/SecurityScheme' },
        },
      },
      additionalProperties: false,
    },
    security: { type: 'array', items: securityRequirement },
  },
  additionalProperties: false,
  patternProperties: ext,
  $defs: {
    PathItem: {
      type: 'object',
      properties: {
        summary: { type: 'string' },
        description: { type: 'string' },
        ...Object.fromEntries(METHODS.map((m) => [m, { $ref: '#/$defs/Operation' }])),
      },
      additionalProperties: false,
      patternProperties: ext,
    },
    Operation: {
      type: 'object',
      required: ['responses', 'operationId'],
      properties: {
        tags: { type: 'array', items: { type: 'string' } },
        summary: { type: 'string' },
        description: { type: 'string' },
        operationId: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9]*$' },
        parameters: { type: 'array', items: { $ref: '#/$defs/Parameter' } },
        requestBody: {
          type: 'object',
          required: ['content'],
          properties: { description: { type: 'string' }, required: { type: 'boolean' }, content: mediaTypes },
          additionalProperties: false,
        },
        responses: {
          type: 'object',
          minProperties: 1,
          propertyNames: { pattern: '^([1-5][0-9]{2}|default)$' },
          additionalProperties: {
            type: 'object',
            required: ['description'],
            properties: {
              description: { type: 'string' },
              content: mediaTypes,
              links: { type: 'object', propertyNames: { pattern: '^[a-zA-Z0-9.\\-_]+$' }, additionalProperties: { $ref: '#/$defs/Link' } },
            },
            additionalProperties: false,
          },
        },
        security: { type: 'array', items: securityRequirement },
        deprecated: { type: 'boolean' },
      },
      additionalProperties: false,
      patternProperties: ext,
    },
    Link: {
      type: 'object',
      properties: {
        operationId: { type: 'string' },
        operationRef: { type: 'string' },
        parameters: { type: 'object', additionalProperties: true },
        requestBody: true,
        description: { type: 'string' },
        server: { type: 'object' },
      },
      oneOf: [
        { properties: { operationId: { type: 'string' } }, required: ['operationId'] },
        { properties: { operationRef: { type: 'string' } }, required: ['operationRef'] },
      ],
      additionalProperties: false,
      patternProperties: ext,
    },
    Parameter: {
      type: 'object',
      required: ['name', 'in', 'schema'],
      properties: {
        name: { type: 'string', minLength: 1 },
        in: { enum: ['query', 'header', 'path', 'cookie'] },
        description: { type: 'string' },
        required: { type: 'boolean' },
        deprecated: { type: 'boolean' },
        schema: { type: ['object', 'boolean'] },
        style: { enum: ['matrix', 'label', 'form', 'simple', 'spaceDelimited', 'pipeDelimited', 'deepObject'] },
        explode: { type: 'boolean' },
      },
      if: { properties: { in: { const: 'path' } } },
      then: { required: ['required'], properties: { required: { const: true } } },
      additionalProperties: false,
      patternProperties: ext,
    },
    SecurityScheme: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { enum: ['apiKey', 'http', 'mutualTLS', 'oauth2', 'openIdConnect'] },
        description: { type: 'string' },
        scheme: { type: 'string' },
        bearerFormat: { type: 'string' },
        name: { type: 'string' },
        in: { enum: ['query', 'header', 'cookie'] },
        flows: {
          type: 'object',
          minProperties: 1,
          properties: {
            implicit: flow('authorizationUrl'),
            password: flow('tokenUrl'),
            clientCredentials: flow('tokenUrl'),
            authorizationCode: flow('authorizationUrl', 'tokenUrl'),
          },
          additionalProperties: false,
        },
        openIdConnectUrl: url,
      },
      allOf: [
        { if: { properties: { type: { const: 'http' } } }, then: { properties: { scheme: { type: 'string' } }, required: ['scheme'] } },
        {
          if: { properties: { type: { const: 'apiKey' } } },
          then: { properties: { name: { type: 'string' }, in: { type: 'string' } }, required: ['name', 'in'] },
        },
        { if: { properties: { type: { const: 'oauth2' } } }, then: { properties: { flows: { type: 'object' } }, required: ['flows'] } },
        {
          if: { properties: { type: { const: 'openIdConnect' } } },
          then: { properties: { openIdConnectUrl: { type: 'string' } }, required: ['openIdConnectUrl'] },
        },
      ],
      additionalProperties: false,
    },
  },
}
