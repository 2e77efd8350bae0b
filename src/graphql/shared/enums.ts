/**
 * GraphQL enum values for a database enum: every enum of the API names its values in SCREAMING_CASE (`PUBLISH`), while
 * resolvers and the database keep the stored values (`publish`). Each value has a description.
 */
export function screamingCaseValues<V extends string>(stored: Record<string, V>, descriptions: Record<V, string>) {
  return Object.fromEntries(
    Object.values(stored).map((value) => [value.toUpperCase(), { value, description: descriptions[value] }]),
  ) as Record<Uppercase<V>, { value: V; description: string }>;
}
