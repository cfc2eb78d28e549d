import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/** The OpenAPI document generated from the zod contract, at /openapi.json, and a docs page at /docs. */
async function openapiPlugin(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'DevData developer API',
        version: '1.0.0',
        description: 'Developer data, direct notifications and proactive notifications, self-hosted.',
      },
      components: {
        securitySchemes: {
          developerApiKey: { type: 'http', scheme: 'bearer', description: 'Developer key, svc_dev_…' },
          appSecret: { type: 'http', scheme: 'bearer', description: 'App secret, sk_…' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'Admin token, svc_admin_…' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, () => app.swagger());
}

export default fp(openapiPlugin, { name: 'openapi' });
