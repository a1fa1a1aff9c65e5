import { startService } from '@platform/kit';
import { loadConfig } from './config';
import { installClientErrorEnvelope } from './http/client-error';
import { openImagesService } from './open-service';

startService({
  name: 'images',
  loadConfig,
  open: (config, logger) => openImagesService(config, { logger }),
  answerClientErrors: installClientErrorEnvelope,
});
