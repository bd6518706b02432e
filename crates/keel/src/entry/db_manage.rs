//! `octavia-db-manage` as the deployment tools run it (octavia/db/migration/cli.py): kolla's
//! `extend_start.sh` and helm's db-sync job run `upgrade head` then `upgrade_persistence`;
//! operators run `current`, `history`, `check_migration`.
//!
//! Keel creates the schema at alembic head [`octavia_db::ALEMBIC_HEAD`] in one step
//! (`keel db upgrade`), so `upgrade` takes only `head` (or that revision); `--sql` (offline
//! scripts), `--delta`, other revisions, `stamp` and `revision` are refused, and `downgrade`
//! answers as the reference (`Downgrade no longer supported`). `upgrade_persistence` creates
//! taskflow's jobboard tables in the reference; Keel runs no taskflow (no jobboard, no
//! `[task_flow] persistence_connection`), so it changes nothing and says so.

/// One `octavia-db-manage` command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbCommand {
    /// `upgrade head`: create or complete the schema.
    UpgradeHead,
    /// `upgrade_persistence`: nothing to do in Keel.
    UpgradePersistence,
    /// `current`: `<revision> (head)`, or nothing on an empty database (as alembic).
    Current,
    /// `history`: the one revision Keel knows.
    History,
    /// `check_migration` / `branches`: a single head, nothing to print.
    CheckMigration,
}

/// Why a command line is refused: `(exit status, message)`; 2 for what argparse rejects, 1
/// for what the reference's handlers reject (`SystemExit(msg)`).
pub type Refusal = (i32, String);

/// Parses what follows the oslo options (`rest` of [`compat::oslo_cli::OsloArgs`]).
pub fn parse(rest: &[String]) -> Result<DbCommand, Refusal> {
    let usage = |why: &str| (2, format!("octavia-db-manage: error: {why}"));
    let words: Vec<&str> = rest.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["upgrade", args @ ..] => {
            let mut revision = None;
            for a in args {
                match *a {
                    "--sql" => {
                        return Err((
                            1,
                            "--sql: Keel writes no offline migration scripts; run \
                             `octavia-db-manage upgrade head` against the database"
                                .into(),
                        ));
                    }
                    a if a.starts_with("--delta") => {
                        return Err((1, "--delta: Keel upgrades to head in one step".into()));
                    }
                    a if a.starts_with('-')
                        && !a[1..].starts_with(|c: char| c.is_ascii_digit()) =>
                    {
                        return Err(usage(&format!("unrecognized arguments: {a}")));
                    }
                    a if revision.is_none() => revision = Some(a),
                    a => return Err(usage(&format!("unrecognized arguments: {a}"))),
                }
            }
            match revision {
                None => Err((1, "You must provide a revision or relative delta".into())),
                Some(r) if r.contains('-') => Err((
                    1,
                    "Negative relative revision (downgrade) not supported".into(),
                )),
                Some("head" | "heads") => Ok(DbCommand::UpgradeHead),
                Some(r) if r == octavia_db::ALEMBIC_HEAD => Ok(DbCommand::UpgradeHead),
                Some(r) => Err((
                    1,
                    format!(
                        "upgrade {r}: Keel creates the schema at head ({}) only",
                        octavia_db::ALEMBIC_HEAD
                    ),
                )),
            }
        }
        ["upgrade_persistence"] => Ok(DbCommand::UpgradePersistence),
        ["current", flags @ ..] if flags.iter().all(|f| *f == "--verbose" || *f == "-v") => {
            Ok(DbCommand::Current)
        }
        ["history", flags @ ..] if flags.iter().all(|f| *f == "--verbose" || *f == "-v") => {
            Ok(DbCommand::History)
        }
        ["check_migration"] | ["branches"] => Ok(DbCommand::CheckMigration),
        ["downgrade", ..] => Err((1, "Downgrade no longer supported".into())),
        ["stamp" | "revision", ..] => Err((
            1,
            format!(
                "{}: Keel's schema has one revision ({}); nothing to stamp or generate",
                words[0],
                octavia_db::ALEMBIC_HEAD
            ),
        )),
        [] => Err(usage("too few arguments")),
        [other, ..] => Err(usage(&format!(
            "argument command: invalid choice: '{other}' (choose from 'current', 'history', \
             'branches', 'check_migration', 'upgrade', 'upgrade_persistence', 'downgrade', \
             'stamp', 'revision')"
        ))),
    }
}

/// Runs `command` on the configured database. Errors: the database's (connection, SQL).
pub async fn run(command: DbCommand, config: &service::config::Config) -> anyhow::Result<()> {
    match command {
        DbCommand::UpgradePersistence => {
            let why = "Keel runs no taskflow jobboard: no persistence tables to create \
                       ([task_flow] persistence_connection is not used)";
            tracing::info!("upgrade_persistence: nothing to do: {why}");
            println!("upgrade_persistence: nothing to do: {why}");
            return Ok(());
        }
        DbCommand::History => {
            println!("{}", history_line());
            return Ok(());
        }
        DbCommand::CheckMigration => return Ok(()),
        DbCommand::UpgradeHead | DbCommand::Current => {}
    }
    let db = service::clients::database(config).await?;
    if command == DbCommand::UpgradeHead {
        db.upgrade().await?;
        tracing::info!(revision = octavia_db::ALEMBIC_HEAD, "database at head");
    } else if let Some(line) = current_line(db.current_revision().await?.as_deref()) {
        println!("{line}");
    }
    Ok(())
}

/// What `history` prints: alembic's `<down> -> <rev> (head), <message>` for the single step.
pub fn history_line() -> String {
    format!(
        "<base> -> {} (head), the Octavia schema Keel creates in one step",
        octavia_db::ALEMBIC_HEAD
    )
}

/// What `current` prints for `revision` (alembic marks the head).
pub fn current_line(revision: Option<&str>) -> Option<String> {
    revision.map(|r| {
        if r == octavia_db::ALEMBIC_HEAD {
            format!("{r} (head)")
        } else {
            r.to_string()
        }
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn p(a: &[&str]) -> Result<DbCommand, Refusal> {
        parse(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn the_tools_commands() {
        assert_eq!(p(&["upgrade", "head"]), Ok(DbCommand::UpgradeHead));
        assert_eq!(
            p(&["upgrade", octavia_db::ALEMBIC_HEAD]),
            Ok(DbCommand::UpgradeHead)
        );
        assert_eq!(
            p(&["upgrade_persistence"]),
            Ok(DbCommand::UpgradePersistence)
        );
        assert_eq!(p(&["current"]), Ok(DbCommand::Current));
        assert_eq!(p(&["check_migration"]), Ok(DbCommand::CheckMigration));
        assert_eq!(p(&["upgrade"]).unwrap_err().0, 1);
        assert_eq!(p(&["upgrade", "head", "--sql"]).unwrap_err().0, 1);
        assert_eq!(p(&["upgrade", "-1"]).unwrap_err().0, 1);
        assert_eq!(
            p(&["downgrade", "base"]).unwrap_err().1,
            "Downgrade no longer supported"
        );
        assert_eq!(p(&["frobnicate"]).unwrap_err().0, 2);
        assert_eq!(p(&[]).unwrap_err().0, 2);
        assert_eq!(
            current_line(Some(octavia_db::ALEMBIC_HEAD)).unwrap(),
            "fabf4983846b (head)"
        );
    }
}
