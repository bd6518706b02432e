//! SQLite database URLs as an octavia.conf carries them (SQLAlchemy's forms) and as sqlx
//! writes them: each opens (creating the file when missing) and takes the schema.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use octavia_db::Database;

async fn upgraded(url: &str) -> Database {
    let db = Database::connect(url)
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    db.upgrade().await.unwrap_or_else(|e| panic!("{url}: {e}"));
    db
}

#[tokio::test]
async fn sqlalchemy_and_sqlx_sqlite_urls_open_and_create_the_file() {
    let dir = tempfile::tempdir().unwrap();
    // `sqlite:////abs/path`: an absolute path, the file created
    let abs = dir.path().join("abs.db");
    assert!(!abs.exists());
    upgraded(&format!("sqlite:///{}", abs.display())).await;
    assert!(
        abs.exists(),
        "sqlite:////abs did not create {}",
        abs.display()
    );
    // `sqlite:///relative`: relative to the working directory
    let rel_dir = dir.path().join("cwd");
    std::fs::create_dir(&rel_dir).unwrap();
    std::env::set_current_dir(&rel_dir).unwrap();
    upgraded("sqlite:///rel.db").await;
    assert!(rel_dir.join("rel.db").exists());
    // sqlx's own forms: `sqlite://relative` (no SQLAlchemy meaning), `?mode=rwc`
    upgraded("sqlite://plain.db").await;
    assert!(rel_dir.join("plain.db").exists());
    let rwc = dir.path().join("rwc.db");
    upgraded(&format!("sqlite://{}?mode=rwc", rwc.display())).await;
    assert!(rwc.exists());
    // memory, both spellings
    upgraded("sqlite://").await;
    upgraded("sqlite:///:memory:").await;
    // a second open of the same file sees the schema that is there
    let again = upgraded(&format!("sqlite:///{}", abs.display())).await;
    drop(again);
}
