/** `npm run build:web`: builds the image web app (services/images/web) into its dist/, with Vite's size report. */
import { buildWebApp, WEB_APP_BUILD_DIR } from './lib/web-app';

buildWebApp({ onOutput: (text) => process.stdout.write(text), reportSizes: true }).then(
  () => process.stdout.write(`web app built: ${WEB_APP_BUILD_DIR}\n`),
  (error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  },
);
