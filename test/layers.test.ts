// The layer order of docs/architecture.md, enforced: dependency-cruiser runs the rules of .dependency-cruiser.cjs over
// src/ (type-only imports included) and every import against them is listed, with the rule it breaks.
import { join } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/project-files.js';

async function layerViolations(): Promise<{ violations: IViolation[]; comments: Map<string, string> }> {
  const options = await extractDepcruiseOptions(join(PROJECT_ROOT, '.dependency-cruiser.cjs'));
  const result = await cruise(['src'], { ...options, baseDir: PROJECT_ROOT, outputType: 'json' }, undefined, {
    tsConfig: extractTSConfig(join(PROJECT_ROOT, 'tsconfig.json')),
  });
  const { summary } = JSON.parse(result.output as string) as ICruiseResult;
  const comments = new Map(options.ruleSet?.forbidden?.map((rule) => [rule.name ?? '', rule.comment ?? '']));
  return { violations: summary.violations, comments };
}

const importOf = (violation: IViolation) =>
  violation.cycle?.length
    ? [violation.from, ...violation.cycle.map((step) => step.name)].join(' → ')
    : `${violation.from} → ${violation.to}`;

describe('the layers of src/ (docs/architecture.md)', () => {
  it('has no import against the layer order, between two faces, or in a cycle', { timeout: 60_000 }, async () => {
    const { violations, comments } = await layerViolations();
    const report = violations
      .map((violation) => `${violation.rule.name} (${comments.get(violation.rule.name)}):\n  ${importOf(violation)}`)
      .join('\n');
    expect(report, `${violations.length} imports break the rules of .dependency-cruiser.cjs`).toBe('');
  });
});
