// `npm run seed -- --json`: creates the demo data set (docs/decisions.md §6) on an empty database and prints it
// as one JSON document on stdout; logs go to stderr.
import { loadConfig } from '../config.js';
import { createDemoData } from '../demo/demoData.js';
import { createLogger } from '../logger.js';
import { openRuntime } from '../runtime.js';
import { runCli } from './runCli.js';

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const config = loadConfig();
  const logger = createLogger(config.logLevel, (line) => process.stderr.write(line + '\n'));
  const runtime = await openRuntime(config, logger);
  try {
    const demo = await createDemoData(runtime.deps.db, config.oauthAudience);
    if (json) process.stdout.write(JSON.stringify(demo, null, 2) + '\n');
    else {
      process.stderr.write(`Demo data created. Account API key: ${demo.organizations.account.apiKey}\n`);
      process.stderr.write('Run with --json to print every id, key and secret.\n');
    }
  } finally {
    await runtime.close();
  }
}

runCli(main);
