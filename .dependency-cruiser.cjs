// The layers of src/, lowest first (docs/architecture.md draws and explains them). A module may import from its own
// layer and the layers below it, never from one above; the faces never import each other; no import cycles, type-only
// imports included. test/layers.test.ts runs these rules over src/ (so does `npx depcruise src`).

/** Each layer: a name, and the modules in it (regular expressions on paths from the project root). */
const LAYERS = [
  { name: 'config', paths: ['^src/config\\.ts$'] },
  { name: 'foundation', paths: ['^src/(time|net|content|types)/', '^src/(random|project-files|urls)\\.ts$'] },
  { name: 'platform', paths: ['^src/(logging|http|cache|metrics|tracing)/'] },
  { name: 'data', paths: ['^src/db/'] },
  { name: 'services', paths: ['^src/(auth|webhooks|ical|images)/'] },
  { name: 'schema', paths: ['^src/graphql/'] },
  { name: 'beside the schema', paths: ['^src/(read|limits)/'] },
  { name: 'faces', paths: ['^src/(rest|pages|import)/', '^src/seed\\.ts$'] },
  { name: 'processes', paths: ['^src/(server|server-metrics|cluster)\\.ts$'] },
  { name: 'commands', paths: ['^src/cli\\.ts$', '^src/cli/'] },
];

/** The faces: each turns requests or data from outside into schema operations, and none imports another. */
const FACES = ['^src/rest/', '^src/pages/', '^src/import/', '^src/seed\\.ts$'];

const IN_A_LAYER = LAYERS.flatMap((layer) => layer.paths);

const upwardImports = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer.name.replaceAll(' ', '-')}`,
  comment: `${layer.name} imports only from ${LAYERS.slice(0, index + 1)
    .map((below) => below.name)
    .join(', ')}`,
  severity: 'error',
  from: { path: layer.paths },
  to: { path: LAYERS.slice(index + 1).flatMap((above) => above.paths) },
}));

const facesApart = FACES.map((face) => ({
  name: 'faces-apart',
  comment: 'a face does not import another face: what two faces share belongs in a layer below them (src/read/)',
  severity: 'error',
  from: { path: face },
  to: { path: FACES.filter((other) => other !== face) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'config-stands-alone',
      comment: 'config.ts imports nothing from src/: every module may depend on it, and it on none',
      severity: 'error',
      from: { path: '^src/config\\.ts$' },
      to: { path: '^src/' },
    },
    ...upwardImports,
    ...facesApart,
    {
      name: 'no-circular',
      comment: 'no import cycles, type-only imports included',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'in-a-layer',
      comment: 'every module of src/ belongs to a layer: add a new folder to LAYERS in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: IN_A_LAYER },
    },
    {
      name: 'layered-importer',
      comment: 'every module of src/ belongs to a layer: add a new folder to LAYERS in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: IN_A_LAYER },
      to: {},
    },
    {
      name: 'resolvable',
      comment: 'every relative import resolves (an unresolved one would hide from the rules above)',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true, path: '^\\.' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: ['node_modules', '^src/db/generated/'] },
  },
};
