//

export * from './apis';
export * from './router';
