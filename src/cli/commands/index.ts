// Every CLI command, in the order `gatehouse help` lists them. Later capabilities add theirs here.
import type { Command } from '../command.js';
import { migrateCommand } from './migrate.js';
import { usersCreateCommand, usersDeleteCommand, usersListCommand, usersSetPasswordCommand, usersUpdateCommand } from './users.js';
import { usersResetMfaCommand } from './users-reset-mfa.js';
import { usersIdentitiesCommand, usersUnlinkCommand } from './users-identities.js';
import { usersGrantAdminCommand, usersRevokeAdminCommand } from './users-admin.js';
import { usersInvitationsCommand, usersInviteCommand, usersRevokeInvitationCommand } from './users-invite.js';
import { usersDeleteAttributeCommand, usersSetAttributeCommand } from './users-attributes.js';
import { keysListCommand, keysRotateCommand } from './keys.js';
import { auditVerifyCommand } from './audit.js';
import { clientsCreateCommand, clientsDeleteCommand, clientsDisableCommand, clientsListCommand, clientsShowCommand, clientsUpdateCommand } from './clients.js';
import { registrationTokenCreateCommand } from './registration-tokens.js';
import {
  identityProvidersCreateCommand,
  identityProvidersDeleteCommand,
  identityProvidersDisableCommand,
  identityProvidersListCommand,
  identityProvidersShowCommand,
  identityProvidersUpdateCommand,
} from './identity-providers.js';
import { applyCommand, exportCommand } from './apply.js';
import {
  webhooksCreateCommand,
  webhooksDeleteCommand,
  webhooksListCommand,
  webhooksRotateSecretCommand,
  webhooksShowCommand,
  webhooksUpdateCommand,
} from './webhooks.js';
import { resourceServersCreateCommand, resourceServersDeleteCommand, resourceServersListCommand, resourceServersUpdateCommand } from './resource-servers.js';
import { consentsListCommand, consentsRevokeCommand, grantsListCommand, grantsRevokeCommand, sessionsEndCommand, sessionsListCommand } from './user-access.js';

import { protectCommand } from './protect.js';

export const commands: Command[] = [
  migrateCommand,
  usersCreateCommand,
  usersListCommand,
  usersUpdateCommand,
  usersSetPasswordCommand,
  usersDeleteCommand,
  usersInviteCommand,
  usersInvitationsCommand,
  usersRevokeInvitationCommand,
  usersResetMfaCommand,
  usersIdentitiesCommand,
  usersUnlinkCommand,
  usersSetAttributeCommand,
  usersDeleteAttributeCommand,
  usersGrantAdminCommand,
  usersRevokeAdminCommand,
  grantsListCommand,
  grantsRevokeCommand,
  sessionsListCommand,
  sessionsEndCommand,
  consentsListCommand,
  consentsRevokeCommand,
  keysListCommand,
  keysRotateCommand,
  auditVerifyCommand,
  clientsCreateCommand,
  clientsListCommand,
  clientsShowCommand,
  clientsUpdateCommand,
  clientsDeleteCommand,
  clientsDisableCommand,
  registrationTokenCreateCommand,
  resourceServersCreateCommand,
  resourceServersUpdateCommand,
  resourceServersListCommand,
  resourceServersDeleteCommand,
  identityProvidersCreateCommand,
  identityProvidersListCommand,
  identityProvidersShowCommand,
  identityProvidersDeleteCommand,
  identityProvidersDisableCommand,
  identityProvidersUpdateCommand,
  webhooksCreateCommand,
  webhooksListCommand,
  webhooksShowCommand,
  webhooksUpdateCommand,
  webhooksDeleteCommand,
  webhooksRotateSecretCommand,
  applyCommand,
  exportCommand,
  protectCommand,
];
