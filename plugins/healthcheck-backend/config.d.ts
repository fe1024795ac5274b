export interface Config {
  /** Configuration of the Vigil health-check plugin. */
  healthcheck?: {
    /**
     * Values that checks reference as `${secret:NAME}` in headers and bodies.
     * @visibility secret
     */
    secrets?: { [name: string]: string };
  };
}
