/**
 * Status conditions (metav1.Condition semantics): lastTransitionTime moves only when a condition's
 * status changes, and a status is written only when something the operator owns in it changed, so
 * a reconcile that changes nothing writes nothing (and causes no watch event).
 */
import type { Condition } from '../resources/crd-types.ts';

export interface ConditionInput {
  type: string;
  status: Condition['status'];
  /** PascalCase. */
  reason: string;
  /** Never secret material. */
  message: string;
}

/** The status fields the operator owns (server-side apply drops those it leaves out). */
export interface OwnedStatus {
  observedGeneration: number;
  conditions: Condition[];
  keyHint?: string;
  slug?: string;
}

export function buildConditions(
  existing: readonly Condition[] | undefined,
  inputs: readonly ConditionInput[],
  observedGeneration: number,
  now: string,
): Condition[] {
  return inputs.map((input) => {
    const previous = existing?.find((condition) => condition.type === input.type);
    const lastTransitionTime =
      previous && previous.status === input.status ? previous.lastTransitionTime : now;
    return { ...input, lastTransitionTime, observedGeneration };
  });
}

/** Whether `current` already says everything `desired` says. */
export function statusUpToDate(
  current:
    | { observedGeneration?: number; conditions?: Condition[]; keyHint?: string; slug?: string }
    | undefined,
  desired: OwnedStatus,
): boolean {
  if (current?.observedGeneration !== desired.observedGeneration) return false;
  if ((current.keyHint ?? undefined) !== desired.keyHint) return false;
  if ((current.slug ?? undefined) !== desired.slug) return false;
  return desired.conditions.every((wanted) => {
    const found = current.conditions?.find((condition) => condition.type === wanted.type);
    return (
      found !== undefined &&
      found.status === wanted.status &&
      found.reason === wanted.reason &&
      found.message === wanted.message &&
      found.observedGeneration === wanted.observedGeneration &&
      found.lastTransitionTime === wanted.lastTransitionTime
    );
  });
}

export function findCondition(
  status: { conditions?: Condition[] } | undefined,
  type: string,
): Condition | undefined {
  return status?.conditions?.find((condition) => condition.type === type);
}
