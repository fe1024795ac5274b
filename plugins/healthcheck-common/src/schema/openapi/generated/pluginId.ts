export const pluginId = 'healthcheck';
