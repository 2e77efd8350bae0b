import { type GraphQLField, type GraphQLSchema, getNamedType, isObjectType } from 'graphql';

/** A link of a response path (`info.path`): its key, and the link of the field or list it is in. */
interface PathLink {
  readonly prev: PathLink | undefined;
  readonly key: string | number;
  /** The links below this one, by key, made as they are first asked for. */
  children?: Map<string | number, PathLink>;
}

type ResponsePath = { readonly prev: unknown; readonly key: string | number } | undefined;

/**
 * One link object per place in one execution's response, whoever built the path handed to a resolver.
 *
 * plugin-prisma's selection mapper keeps what it planned for a field by the identity of the field's path link
 * (`info.path`), and memoises the string of a path per link: graphql-js makes one link per field per row and shares
 * the links above a list between its rows, so that a page of 50 events builds each key once. The REST documents run
 * compiled by graphql-jit (src/read/request-contexts.ts), which passes every resolver a path built anew at each call:
 * the memo then never hits (8% of a page of 50 went to rebuilding path strings) and a plan recorded on a field’s
 * link is not found from the fields below it. Resolvers of a compiled execution are handed these links instead.
 */
export class PathLinks {
  private readonly roots = new Map<string | number, PathLink>();

  /** The link of `path`'s place, the same object for every path to that place. */
  of(path: ResponsePath): PathLink | undefined {
    if (!path) return undefined;
    const prev = this.of(path.prev as ResponsePath);
    const siblings = prev ? (prev.children ??= new Map()) : this.roots;
    let link = siblings.get(path.key);
    if (!link) {
      link = { prev, key: path.key };
      siblings.set(path.key, link);
    }
    return link;
  }
}

/** The root value of a compiled execution: `root`'s fields, and the execution's own path links. */
export function withPathLinks(root: object | undefined): RootWithPathLinks {
  return { ...root, pathLinks: new PathLinks() };
}

interface RootWithPathLinks {
  pathLinks?: PathLinks;
}

/**
 * Makes the resolvers of `schema` that read their path see the execution's own path links when its root value
 * carries them (a compiled execution, withPathLinks); under graphql-js, which shares its links already, the root has
 * none and the resolver runs as it was. Those that read it are plugin-prisma's: a field that selects columns of its
 * row (`select`), and one that answers records (a relation, a list, a connection and its edges), which plans their
 * query from where it stands. A link is found by its place, so the fields in between need not be given theirs.
 */
export function resolveWithPathLinks(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve;
      if (!resolve || !readsItsPath(field)) continue;
      field.resolve = (parent, args, context, info) => {
        const links = (info.rootValue as RootWithPathLinks | undefined)?.pathLinks;
        if (links) (info as { path: unknown }).path = links.of(info.path);
        return resolve(parent, args, context, info);
      };
    }
  }
  return schema;
}

const readsItsPath = (field: GraphQLField<unknown, unknown>) =>
  field.extensions?.pothosPrismaSelect !== undefined || isObjectType(getNamedType(field.type));
