/** The admin CLI's `--help` text: every command, its options and the exit statuses. */
export const ADMIN_HELP = `Image hosting admin

Usage: npm run admin -w services/images -- <command> [options]
   or: node dist/src/admin/cli.js <command> [options]

Schema
  migrate                                   apply pending migrations (once per deploy, before replicas started
                                            with DATABASE_MIGRATIONS=verify); every command does too

Users
  create-user <name> [--group <group>] [--admin] [--password-stdin]
                                            create a user (group "default" unless given); prints its account
                                            token; with --password-stdin the first line of stdin is its password
  reset-token <name>                        replace the user's account token; prints the new one
  set-password <name>                       set the user's password from the first line of stdin
  set-group <name> <group>                  move a user to another membership group
  set-admin <name> yes|no                   make the user an admin (manages users and groups through the API) or not
  disable-user <name> / enable-user <name>  every credential of a disabled user stops at once
  list-users                                users with group, admin, disabled, used and quota bytes

Groups
  create-group <name> --max-file-size <size> --quota <size> [--keep-metadata yes|no]
  edit-group <name> [--max-file-size <size>] [--quota <size>] [--rename <new-name>] [--keep-metadata yes|no]
  list-groups
  Sizes are bytes or a number with a unit: 10MiB, 1GiB, 500KB. max-file-size may not exceed
  MAX_UPLOAD_BYTES (the multipart cap, kept equal to nginx client_max_body_size).

Categories
  create-category <user> <name>
  list-categories <user>

Recycle bin
  purge-bin [--user <name>] [--older-than-days <n>]
                                            permanently delete bin items (all, or one user's, or older ones)
                                            and free their bytes

Storage
  storage:status                            how many images each backend (local, s3) holds
  storage:migrate --to s3|local [--concurrency <n>]
                                            move every image's files to that backend, verifying each
                                            object (size and SHA-256); the service keeps serving meanwhile.
                                            Stopped part-way, run it again: it resumes. Needs the S3_
                                            variables (S3_BUCKET, ...) whichever way it moves. n images
                                            at a time (1-64, default 8), each holding one database
                                            connection while it is copied.

Moving in (see the README)
  import-from easyimage <install dir> --user <name> [--redirect-map <file>]
                                            store an EasyImage 2.x install's images (original names and
                                            dates) and API tokens as the user's; one report line per row;
                                            run again to resume (nothing is imported twice); writes an
                                            nginx map from old paths to new addresses
                                            (default ./easyimage-redirects.map)
  import-from lsky <database.sqlite|dump.sql> <storage dir> [--time-zone <zone>] [--redirect-map <file>]
                                            Lsky Pro 2.x (SQLite, or a mysqldump file): groups, users
                                            (named by email, no password: set-password), albums as
                                            categories, images from the local strategy's root; the same
                                            report, resume and map (default ./lsky-redirects.map)

Configuration comes from the same environment variables as the service (DATABASE_URL, STORAGE_DIR, ...).
An embedded database (pglite:<dir>) that a running service has open is reached through that service.

Exit status: 0 success, 1 failure (message on stderr), 2 usage error.`;

/** Commands that read a secret from stdin (the CLI reads it before the command runs, so it also travels to a running service). */
export function readsStdin(argv: string[]): boolean {
  return argv[0] === 'set-password' || argv.includes('--password-stdin');
}
