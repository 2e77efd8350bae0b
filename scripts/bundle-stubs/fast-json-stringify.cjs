// Stands in for fast-json-stringify in the bundle (scripts/bundle.ts): graphql-jit loads it for its optional
// `customJSONSerializer`, which this service never turns on, and with it Ajv: 4-8 MB of resident memory for nothing.
module.exports = function fastJsonStringifyIsNotBundled() {
  throw new Error('fast-json-stringify is not in the bundle: graphql-jit was asked for customJSONSerializer');
};
