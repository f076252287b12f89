import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { flowSchema, FLOW_SCHEMA_ID } from './schema/flow-schema.js';
import { EXTENSION_KEYWORD } from './schema/builders.js';
import { escapePointerToken } from './positions.js';

interface Found {
  pointer: string;
  node: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every schema found under a `properties` keyword, anywhere in the flow schema. */
function propertySchemas(node: unknown, pointer = ''): Found[] {
  const out: Found[] = [];
  if (Array.isArray(node)) {
    node.forEach((child, i) => out.push(...propertySchemas(child, `${pointer}/${i}`)));
    return out;
  }
  if (!isObject(node)) return out;
  for (const [key, child] of Object.entries(node)) {
    const childPointer = `${pointer}/${escapePointerToken(key)}`;
    // Examples and defaults are data, not schemas; `if` and `not` only test, they define nothing.
    if (['examples', 'default', 'const', 'enum', 'if', 'not'].includes(key)) continue;
    if (key === 'properties' && isObject(child)) {
      for (const [name, prop] of Object.entries(child)) {
        const p = `${childPointer}/${escapePointerToken(name)}`;
        if (isObject(prop)) out.push({ pointer: p, node: prop });
        out.push(...propertySchemas(prop, p));
      }
    } else {
      out.push(...propertySchemas(child, childPointer));
    }
  }
  return out;
}

function newAjv(): Ajv2020 {
  return new Ajv2020({ allErrors: true, strict: true, strictTypes: true, allowUnionTypes: true }).addKeyword({ keyword: EXTENSION_KEYWORD, schemaType: 'string' });
}

describe('flowSchema', () => {
  it('is a valid draft 2020-12 schema that ajv compiles in strict mode', () => {
    const ajv = newAjv();
    assert.equal(flowSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(flowSchema.$id, FLOW_SCHEMA_ID);
    assert.equal(ajv.validateSchema(flowSchema), true, JSON.stringify(ajv.errors));
    assert.doesNotThrow(() => ajv.compile(flowSchema));
  });

  it('defines every table of the spec in $defs', () => {
    const defs = Object.keys(flowSchema.$defs as object);
    for (const name of ['Flow', 'Concurrency', 'Input', 'Trigger', 'Retry', 'Executor', 'Resources', 'ResourceList', 'Kubernetes', 'Toleration', 'Task']) {
      assert.ok(defs.includes(name), `missing $defs/${name}`);
    }
  });

  it('closes every object: additionalProperties or unevaluatedProperties is false', () => {
    for (const [name, def] of Object.entries(flowSchema.$defs as Record<string, Record<string, unknown>>)) {
      if (def.type !== 'object' || name === 'StringMap') continue;
      const closed = def.additionalProperties === false || def.unevaluatedProperties === false;
      assert.ok(closed, `$defs/${name} accepts unknown properties`);
      if (Array.isArray(def.allOf)) assert.equal(def.unevaluatedProperties, false, `$defs/${name} uses allOf without unevaluatedProperties`);
    }
  });

  it('describes every property, for editor completion', () => {
    const props = propertySchemas(flowSchema);
    assert.ok(props.length > 80, `only ${props.length} properties found`);
    const missing = props.filter((p) => typeof p.node.description !== 'string' || p.node.description === '');
    assert.deepEqual(
      missing.map((p) => p.pointer),
      [],
    );
  });

  it('has defaults and examples that pass their own schema', () => {
    const ajv = newAjv();
    ajv.addSchema(flowSchema);
    let checked = 0;
    const samples: Found[] = [...propertySchemas(flowSchema)];
    for (const [name, def] of Object.entries(flowSchema.$defs as Record<string, Record<string, unknown>>)) {
      samples.push({ pointer: `/$defs/${name}`, node: def });
    }
    for (const { pointer, node } of samples) {
      const values = [...(Array.isArray(node.examples) ? node.examples : []), ...('default' in node ? [node.default] : [])];
      if (values.length === 0) continue;
      const check = ajv.getSchema(`${FLOW_SCHEMA_ID}#${pointer}`);
      assert.ok(check, `no schema at ${pointer}`);
      for (const v of values) {
        assert.equal(check(v), true, `${pointer}: ${JSON.stringify(v)} fails: ${JSON.stringify(check.errors)}`);
        checked++;
      }
    }
    assert.ok(checked > 50, `only ${checked} samples checked`);
  });

  it('is plain JSON (served as-is by GET /api/v1/schemas/flow.json)', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(flowSchema)), flowSchema);
  });
});
