import { migrate } from '../../storage/driver/migrate.js';
import type { Command } from '../command.js';

export const migrateCommand: Command = {
  name: 'migrate',
  usage: 'migrate',
  async run(_args, core) {
    return { applied: await migrate(core.database.db) };
  },
};
