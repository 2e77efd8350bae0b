// Every type, field, argument, input field and enum value of the schema carries a description (GraphiQL's docs and
// codegen comments are what front-end developers read), and enum values are SCREAMING_CASE.
import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isSpecifiedScalarType,
  type GraphQLArgument,
  type GraphQLField,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../src/graphql/schema.js';

const ownTypes = () =>
  Object.values(schema.getTypeMap()).filter((type) => !type.name.startsWith('__') && !isSpecifiedScalarType(type));

const described = (description: string | null | undefined) => (description ?? '').trim() !== '';

/** Every schema element without a description, named as `Type`, `Type.field`, `Type.field(arg:)` or `Enum.VALUE`. */
function undescribed(): string[] {
  const missing: string[] = [];
  const checkField = (typeName: string, field: GraphQLField<unknown, unknown>) => {
    if (!described(field.description)) missing.push(`${typeName}.${field.name}`);
    field.args.forEach((arg: GraphQLArgument) => {
      if (!described(arg.description)) missing.push(`${typeName}.${field.name}(${arg.name}:)`);
    });
  };
  for (const type of ownTypes()) {
    if (!described(type.description)) missing.push(type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      Object.values(type.getFields()).forEach((field) => checkField(type.name, field));
    } else if (isInputObjectType(type)) {
      Object.values(type.getFields()).forEach((field) => {
        if (!described(field.description)) missing.push(`${type.name}.${field.name}`);
      });
    } else if (isEnumType(type)) {
      type.getValues().forEach((value) => {
        if (!described(value.description)) missing.push(`${type.name}.${value.name}`);
      });
    }
  }
  return missing;
}

describe('schema descriptions', () => {
  it('describes every type, field, argument, input field and enum value', () => {
    const missing = undescribed();
    // One line per element rather than an array diff, so that the list reads as a to-do list.
    if (missing.length > 0) expect.fail(`${missing.length} without a description:\n${missing.join('\n')}`);
  });

  it('names every enum value in SCREAMING_CASE', () => {
    const badlyNamed = ownTypes()
      .filter(isEnumType)
      .flatMap((type) => type.getValues().map((value) => `${type.name}.${value.name}`))
      .filter((name) => !/^[A-Z][A-Z0-9_]*$/.test(name.split('.')[1]!));
    if (badlyNamed.length > 0) expect.fail(`enum values not in SCREAMING_CASE:\n${badlyNamed.join('\n')}`);
  });
});
