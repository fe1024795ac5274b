/**
 * The client of the health-check API, generated from the backend's OpenAPI
 * document (`src/schema/openapi.yaml` of the backend), for frontends and
 * other plugins: `new DefaultApiClient({ discoveryApi, fetchApi })`, and a
 * `token` per call from a backend. Its models are the document's; the main
 * entry point's types say the same with more to read.
 *
 * @packageDocumentation
 */
export * from './schema/openapi';
