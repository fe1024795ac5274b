import { HttpAuthService } from '@backstage/backend-plugin-api';
import { CatalogService } from '@backstage/plugin-catalog-node';
import express from 'express';
import Router from 'express-promise-router';
import { HealthcheckStore } from '../database/HealthcheckStore';
import { ProbeTypeRegistry } from '../probes/ProbeTypeRegistry';
import { listChecks } from './listChecks';

/** Builds the `/api/healthcheck` router. */
export async function createRouter(options: {
  httpAuth: HttpAuthService;
  store: HealthcheckStore;
  catalog: CatalogService;
  probeTypes: ProbeTypeRegistry;
}): Promise<express.Router> {
  const { httpAuth, store, catalog, probeTypes } = options;
  const router = Router();
  router.use(express.json());

  router.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/v1/checks', async (req, res) => {
    const credentials = await httpAuth.credentials(req, {
      allow: ['user', 'service'],
    });
    const items = await listChecks({ store, catalog, credentials });
    res.json({ items });
  });

  router.get('/v1/probe-types', async (req, res) => {
    await httpAuth.credentials(req, { allow: ['user', 'service'] });
    res.json({ items: probeTypes.list() });
  });

  return router;
}
