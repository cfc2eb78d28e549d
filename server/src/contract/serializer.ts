// Responses are written from the contract by serializers compiled once per route and status with
// fast-json-stringify, from the JSON Schema of the route's zod response schema: the bytes that
// JSON.stringify(schema.parse(body)) would give, without parsing every response again.
import fastJsonStringify from 'fast-json-stringify';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

// Keywords that only constrain a string's value: a string is written the same whatever they say, and
// dropping them spares fast-json-stringify a regex test where it must pick a branch of an anyOf.
const STRING_CONSTRAINTS = new Set(['pattern', 'format', 'minLength', 'maxLength']);

/**
 * The JSON Schema for writing: no string constraints; no `required`, since fast-json-stringify writes required
 * properties before optional ones while zod keeps the schema's order (the contract has no union of objects
 * that `required` would tell apart); and `anyOf [T, null]` of a scalar T as `type: [T, null]`.
 */
function forWriting(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forWriting);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (
      key === '$schema' ||
      key === 'required' ||
      (STRING_CONSTRAINTS.has(key) && (schema as JsonSchema).type === 'string')
    )
      continue;
    out[key] =
      key === 'properties' || key === 'definitions' ? mapValues(value as JsonSchema) : forWriting(value);
  }
  const anyOf = out.anyOf as JsonSchema[] | undefined;
  if (anyOf?.length === 2 && Object.keys(out).length === 1) {
    const [value, other] = anyOf[1].type === 'null' ? anyOf : [anyOf[1], anyOf[0]];
    const scalar = ['string', 'number', 'integer', 'boolean'].includes(value.type as string);
    if (other.type === 'null' && Object.keys(other).length === 1 && scalar && !('anyOf' in value)) {
      return { ...value, type: [value.type, 'null'] };
    }
  }
  return out;
}

function mapValues(schemas: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, forWriting(schema)]));
}

/** A response schema as fastify-type-provider-zod accepts it: a zod schema, or one under `properties`. */
function zodSchemaOf(schema: unknown): z.ZodType | undefined {
  if (schema instanceof z.ZodType) return schema;
  const properties = (schema as { properties?: unknown } | null)?.properties;
  return properties instanceof z.ZodType ? properties : undefined;
}

/**
 * Fastify's serializer compiler for zod response schemas. A schema JSON Schema cannot express (a transform
 * in a response) keeps the zod serializer, whose output it defines.
 */
export const serializerCompiler: typeof zodSerializerCompiler = (route) => {
  const schema = zodSchemaOf(route.schema);
  if (!schema) return zodSerializerCompiler(route);
  let jsonSchema: unknown;
  try {
    jsonSchema = z.toJSONSchema(schema, { io: 'output', target: 'draft-7', unrepresentable: 'throw' });
  } catch {
    return zodSerializerCompiler(route);
  }
  return fastJsonStringify(forWriting(jsonSchema) as Parameters<typeof fastJsonStringify>[0]);
};
