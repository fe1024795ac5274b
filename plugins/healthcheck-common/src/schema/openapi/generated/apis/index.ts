//

export * from './Api.client';
