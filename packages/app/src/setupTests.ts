import '@testing-library/jest-dom';

// The first render of a test app loads much of Backstage; on a busy 2-core
// machine that alone can pass jest's default 5 s.
jest.setTimeout(30_000);
