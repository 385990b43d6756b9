// The enums of the engine document (openapi/engine.yaml), read as the service reads the document,
// for the tests that hold the source's vocabulary lists to it.
import { loadDocument } from '../../src/api/documents.js';

interface EnumSchema {
  enum?: string[];
  anyOf?: EnumSchema[];
}

/** The enum of components.schemas.<name>, or of its first `anyOf` branch that has one. */
export function documentEnum(name: string): string[] {
  const definition = loadDocument('engine').definition as { components: { schemas: Record<string, EnumSchema> } };
  const schema = definition.components.schemas[name];
  const values = schema?.enum ?? schema?.anyOf?.find((branch) => branch.enum)?.enum;
  if (!values) throw new Error(`components.schemas.${name} of openapi/engine.yaml has no enum`);
  return values;
}
