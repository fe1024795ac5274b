import { configure } from '@testing-library/react';
import '@testing-library/jest-dom';

// The first render of a test app loads much of Backstage; on a busy 2-core
// machine that alone can pass jest's default 5 s.
jest.setTimeout(30_000);

// Under a loaded CI machine a component can take more than testing-library's
// default second to settle; findBy* and waitFor wait up to 10 s instead.
configure({ asyncUtilTimeout: 10_000 });
