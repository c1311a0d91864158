// The usage error of a target spec (`--to`, the editor's target setting), with the problem
// named for callers that word it their own way.

import { DqError } from '../client/errors';

/** What was wrong with a spec, in `details.problem` of the usage error, for callers that word it their own way. */
export type TargetSpecProblem = 'invalidUrl' | 'noServer' | 'noDatabase' | 'unknownKind' | 'noFile';

export function specError(problem: TargetSpecProblem, message: string, hint: string): DqError {
  return new DqError('usage', message, { hint, details: { problem } });
}
