import type { PrismaModelTypes, prismaModelName } from '@pothos/plugin-prisma';
import type PrismaTypes from '../../db/generated/pothos-types.js';
import type { builder } from '../builder.js';

// The types of Pothos' field builders, for modules that declare the same fields on several types (Pothos gives no
// type for "the builder of any of these models"; one model's builder describes the fields they share).

export type SchemaTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

type Model<Name extends keyof PrismaTypes> = PrismaModelTypes & PrismaTypes[Name];

/** The field builder of the object type over the Prisma model `Name`. */
export type PrismaFieldBuilder<Name extends keyof PrismaTypes> = PothosSchemaTypes.PrismaObjectFieldBuilder<
  SchemaTypes,
  Model<Name>,
  Model<Name>['Shape'] & { [prismaModelName]?: Name }
>;

export type InputFieldBuilder = PothosSchemaTypes.InputFieldBuilder<SchemaTypes, 'InputObject'>;
