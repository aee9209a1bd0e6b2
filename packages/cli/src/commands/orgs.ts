/**
 * `igw orgs create`: anonymous sign-up of an organisation (a top-level tenant with the workspace
 * `default`), with an optional referral; prints the owner PAT once. No token is needed.
 */
import type { CreatedOrganization } from '@inference-gateway/admin';
import type { Command } from 'commander';
import type { CliContext } from '../context.ts';
import { orDash, renderFields } from '../output.ts';

interface CreateOptions {
  name: string;
  email: string;
  referral?: string;
  slug?: string;
}

function renderOrganization({ organization, pat }: CreatedOrganization): string {
  return renderFields([
    ['organization', organization.id],
    ['name', organization.name],
    ['slug', organization.slug],
    ['referral', orDash(organization.referral)],
    ['owner email', organization.ownerEmail],
    ['workspaces', organization.workspaces.map((workspace) => workspace.id).join(', ')],
    ['owner pat id', pat.id],
    ['owner pat', pat.token],
  ]);
}

export function registerOrgCommands(program: Command, context: CliContext): void {
  const orgs = program
    .command('orgs')
    .description('sign up organisations (anonymous)')
    .addHelpText(
      'after',
      `
Examples:
  igw orgs create --name "Acme Labs" --email owner@acme.example --referral partner.x`,
    );

  orgs
    .command('create')
    .description('create an organisation and its owner PAT (every permission; printed once)')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--email <email>', "the owner's e-mail address")
    .option('--referral <tag>', 'referral tag: at most 64 of a-z 0-9 . _ - (set once)')
    .option('--slug <slug>', 'the id: 1-56 of a-z 0-9 - (default: made from the name)')
    .addHelpText(
      'after',
      `
Examples:
  igw orgs create --name "Acme Labs" --email owner@acme.example --referral partner.x
  igw orgs create --name Acme --email a@acme.example --slug acme --json | jq -r .pat.token`,
    )
    .action(async (options: CreateOptions, command: Command) => {
      const client = await context.anonymousClient(command);
      const created = await client.createOrganization({
        name: options.name,
        email: options.email,
        ...(options.referral === undefined ? {} : { referral: options.referral }),
        ...(options.slug === undefined ? {} : { slug: options.slug }),
      });
      context.print(command, created, () => renderOrganization(created));
      context.note(command, 'the owner PAT is shown once: store it now');
    });
}
