//

export * from './apis';
export * from './models';
