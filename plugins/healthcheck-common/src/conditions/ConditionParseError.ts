/**
 * Thrown by `parseCondition` for a condition that cannot be evaluated: it
 * names the condition, the 0-based column of the problem, and the reason.
 * @public
 */
export class ConditionParseError extends Error {
  readonly condition: string;
  readonly position: number;
  readonly reason: string;

  constructor(condition: string, position: number, reason: string) {
    super(
      `Invalid condition ${JSON.stringify(
        condition,
      )} at position ${position}: ${reason}`,
    );
    this.name = 'ConditionParseError';
    this.condition = condition;
    this.position = position;
    this.reason = reason;
  }
}
