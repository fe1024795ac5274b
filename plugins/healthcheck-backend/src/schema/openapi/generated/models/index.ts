//

export * from './CheckDetails.model';
export * from './CheckInput.model';
export * from './EnvironmentRollup.model';
export * from './ErrorError.model';
export * from './HealthStatus.model';
export * from './ListSystemChecks200Response.model';
export * from './ListSystems200Response.model';
export * from './ModelError.model';
export * from './RollupReason.model';
export * from './SliceHealth.model';
export * from './SliceUptimes.model';
export * from './SliceUptimesSlicesValue.model';
export * from './SystemHealthSummary.model';
export * from './SystemRollup.model';
export * from './SystemRollupUpstreamInner.model';
