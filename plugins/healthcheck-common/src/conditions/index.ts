export {
  MAX_CONDITION_LENGTH,
  MAX_CONDITION_NESTING,
  parseCondition,
} from './parseCondition';
export { evaluateCondition } from './evaluateCondition';
export {
  compileConditions,
  judgeCompiledConditions,
  judgeConditions,
  validateConditions,
} from './judgeConditions';
export type { CompiledCondition } from './judgeConditions';
export { ConditionParseError } from './ConditionParseError';
export type {
  AnyOperand,
  BodyPathStep,
  ComparisonOperator,
  Condition,
  ConditionContext,
  ConditionEvaluation,
  ConditionJudgement,
  ConditionOperand,
  ConditionProblem,
  ConditionSeverity,
  ConditionSpec,
  HasOperand,
  JudgedCondition,
  LengthOperand,
  LiteralOperand,
  OperandSource,
  PatternOperand,
  PlaceholderName,
  PlaceholderOperand,
} from './types';
