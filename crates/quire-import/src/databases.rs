//! Database servers → rows: PostgreSQL (`postgres`), MySQL and MariaDB (`mysql`), Redis
//! (`redis`), each over one plain connection without TLS ([`Dsn`] refuses a DSN that asks
//! for it), and the listing of their tables (or Redis key prefixes) for `/import/browse`.
//!
//! **Reading only.** SQL (`query`: a table name, `schema.table`, or one `SELECT`/`WITH`/
//! `VALUES`/`TABLE` statement) runs wrapped as a subquery, `SELECT … FROM (<query>) AS q`, in
//! a read-only transaction: a statement that writes cannot be smuggled in. A read-only
//! database user is still the advice for a server that matters.
//!
//! **Types.** PostgreSQL converts each row itself (`row_to_json`): integers and floats,
//! `numeric` as a JSON number, text, booleans, timestamps as ISO 8601 text, `json`/`jsonb` as
//! JSON, arrays as lists. MySQL rows are typed by their column: integers, `tinyint(1)` as a
//! boolean, floats and decimals as numbers, dates and times as ISO 8601 text, `JSON` columns
//! as JSON, binary columns left out. NULL is no value everywhere.
//!
//! **Redis.** `query` is a key pattern (`note:*`; default `*`). A hash is a row of its fields,
//! a string a row with `value` (decoded when it is JSON), a list, set or sorted set a row
//! whose `value` is the list of members; each row has `_key`. Keys are read in sorted order.
//!
//! **Errors.** A server that refuses (nothing listening, a wrong password, an unknown
//! database) is [`ImportError::BadRequest`] naming the server without its password; every
//! driver message is scrubbed of the password before it is kept.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Map, Number, Value};

use crate::dsn::{Dsn, CONNECT_TIMEOUT_SECS};
use crate::kind::SourceKind;
use crate::rows::Cap;
use crate::{ImportError, Row};

/// Keys of a Redis database one browse or import scans at most.
pub const REDIS_SCAN_MAX: usize = crate::MAX_ROWS;

fn timeout() -> Duration {
    Duration::from_secs(CONNECT_TIMEOUT_SECS)
}

/// The rows of `query` on the server `dsn` names.
pub fn rows(
    kind: SourceKind,
    dsn: &Dsn,
    query: Option<&str>,
    cap: Cap,
) -> Result<Vec<Row>, ImportError> {
    match kind {
        SourceKind::Postgres => postgres_rows(dsn, query, cap),
        SourceKind::Mysql => mysql_rows(dsn, query, cap),
        SourceKind::Redis => redis_rows(dsn, query, cap),
        other => Err(ImportError::BadRequest(format!(
            "source `{}` is not a database server",
            other.id()
        ))),
    }
}

/// The tables (views too) of the server's database, or Redis's key prefixes (`note:*`), sorted.
pub fn tables(kind: SourceKind, dsn: &Dsn) -> Result<Vec<String>, ImportError> {
    match kind {
        SourceKind::Postgres => postgres_tables(dsn),
        SourceKind::Mysql => mysql_tables(dsn),
        SourceKind::Redis => redis_prefixes(dsn),
        other => Err(ImportError::BadRequest(format!(
            "source `{}` is not a database server",
            other.id()
        ))),
    }
}

/// The SELECT of `query`: a table name (or `schema.table`), quoted with `quote`, or one
/// reading statement, its trailing `;` removed.
fn select_sql(query: Option<&str>, quote: char, source: &str) -> Result<String, ImportError> {
    let query = query
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .ok_or_else(|| {
            ImportError::BadRequest(format!(
                "a {source} import needs `query`: SQL or a table name"
            ))
        })?;
    let parts: Vec<&str> = query.split('.').collect();
    if parts.len() <= 2 && parts.iter().all(|p| crate::rows::is_table_name(p)) {
        let quoted: Vec<String> = parts
            .iter()
            .map(|p| {
                format!(
                    "{quote}{}{quote}",
                    p.replace(quote, &format!("{quote}{quote}"))
                )
            })
            .collect();
        return Ok(format!("SELECT * FROM {}", quoted.join(".")));
    }
    let first = query
        .split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("")
        .to_ascii_uppercase();
    if !matches!(first.as_str(), "SELECT" | "WITH" | "VALUES" | "TABLE") {
        return Err(ImportError::BadRequest(
            "`query` is a table name or one SELECT statement".to_string(),
        ));
    }
    Ok(query
        .trim_end_matches([';', ' ', '\n', '\r', '\t'])
        .to_string())
}

// ---- PostgreSQL -------------------------------------------------------------------------

fn postgres_client(dsn: &Dsn) -> Result<postgres::Client, ImportError> {
    let mut config: postgres::Config = dsn
        .secret()
        .parse()
        .map_err(|e: postgres::Error| dsn.refused(&postgres_message(&e)))?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(timeout());
    }
    config
        .connect(postgres::NoTls)
        .map_err(|e| dsn.refused(&postgres_message(&e)))
}

/// The server's own message when there is one (`password authentication failed for user
/// "ann"`), else the driver's with its causes.
fn postgres_message(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return db.message().to_string();
    }
    let mut message = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(&format!(": {text}"));
        }
        source = cause.source();
    }
    message
}

fn postgres_rows(dsn: &Dsn, query: Option<&str>, cap: Cap) -> Result<Vec<Row>, ImportError> {
    use postgres::fallible_iterator::FallibleIterator;

    let sql = select_sql(query, '"', "postgres")?;
    let mut client = postgres_client(dsn)?;
    let failed = |e: postgres::Error| dsn.failed(&postgres_message(&e));
    let mut tx = client
        .build_transaction()
        .read_only(true)
        .start()
        .map_err(failed)?;
    let wrapped = format!("SELECT row_to_json(q)::text FROM ({sql}\n) AS q");
    let mut result = tx
        .query_raw(wrapped.as_str(), Vec::<String>::new())
        .map_err(failed)?;
    let mut rows = Vec::new();
    while let Some(record) = result.next().map_err(failed)? {
        let text: &str = record.try_get(0).map_err(failed)?;
        let row = match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => map.into_iter().filter(|(_, v)| !v.is_null()).collect(),
            _ => {
                return Err(ImportError::BadRequest(
                    "PostgreSQL answered a row that is not a JSON object".to_string(),
                ))
            }
        };
        if cap.push(&mut rows, row)? {
            break;
        }
    }
    Ok(rows)
}

fn postgres_tables(dsn: &Dsn) -> Result<Vec<String>, ImportError> {
    let mut client = postgres_client(dsn)?;
    let rows = client
        .query(
            "SELECT CASE WHEN table_schema = 'public' THEN table_name::text \
             ELSE table_schema || '.' || table_name END AS name \
             FROM information_schema.tables \
             WHERE table_schema NOT IN ('pg_catalog', 'information_schema') \
             AND table_schema NOT LIKE 'pg\\_toast%' ORDER BY 1",
            &[],
        )
        .map_err(|e| dsn.failed(&postgres_message(&e)))?;
    Ok(rows.iter().map(|r| r.get::<_, String>(0)).collect())
}

// ---- MySQL and MariaDB -------------------------------------------------------------------

fn mysql_conn(dsn: &Dsn) -> Result<mysql::Conn, ImportError> {
    // The mysql crate reads `mysql://`; `mariadb://` is the same server.
    let url = match dsn.secret().split_once("://") {
        Some((_, rest)) => format!("mysql://{rest}"),
        None => dsn.secret().to_string(),
    };
    let opts = mysql::Opts::from_url(&url).map_err(|e| dsn.refused(&e.to_string()))?;
    let opts = mysql::OptsBuilder::from_opts(opts)
        .tcp_connect_timeout(Some(timeout()))
        .read_timeout(Some(Duration::from_secs(600)))
        // Connect where the DSN says, not to a socket the server names.
        .prefer_socket(false);
    mysql::Conn::new(opts).map_err(|e| dsn.refused(&e.to_string()))
}

fn mysql_rows(dsn: &Dsn, query: Option<&str>, cap: Cap) -> Result<Vec<Row>, ImportError> {
    use mysql::prelude::Queryable;

    let sql = select_sql(query, '`', "mysql")?;
    let mut conn = mysql_conn(dsn)?;
    let failed = |e: mysql::Error| dsn.failed(&e.to_string());
    conn.query_drop("START TRANSACTION READ ONLY")
        .map_err(failed)?;
    let wrapped = format!("SELECT * FROM ({sql}\n) AS q");
    let mut result = conn.query_iter(wrapped).map_err(failed)?;
    let columns: Vec<mysql::Column> = result.columns().as_ref().to_vec();
    let names: Vec<String> = columns.iter().map(|c| c.name_str().into_owned()).collect();
    let mut rows = Vec::new();
    for record in result.by_ref() {
        let record = record.map_err(failed)?;
        let mut row = Map::new();
        for (i, (name, column)) in names.iter().zip(&columns).enumerate() {
            if let Some(value) = record.as_ref(i).and_then(|v| mysql_value(v, column)) {
                row.insert(name.clone(), value);
            }
        }
        if cap.push(&mut rows, row)? {
            break;
        }
    }
    drop(result);
    Ok(rows)
}

/// One MySQL value as JSON, typed by its column; `None` for NULL and binary data.
fn mysql_value(value: &mysql::Value, column: &mysql::Column) -> Option<Value> {
    use mysql::consts::{ColumnFlags, ColumnType as T};
    use mysql::Value as V;

    const BINARY_CHARSET: u16 = 63;
    let bytes = match value {
        V::NULL => return None,
        V::Int(n) => return Some(Value::Number((*n).into())),
        V::UInt(n) => return Some(Value::Number((*n).into())),
        V::Float(x) => return Number::from_f64(f64::from(*x)).map(Value::Number),
        V::Double(x) => return Number::from_f64(*x).map(Value::Number),
        V::Date(y, mo, d, h, mi, s, us) => {
            let date = format!("{y:04}-{mo:02}-{d:02}");
            return Some(Value::String(match (column.column_type(), h, mi, s, us) {
                (T::MYSQL_TYPE_DATE, ..) | (_, 0, 0, 0, 0) => date,
                (.., 0) => format!("{date}T{h:02}:{mi:02}:{s:02}"),
                _ => format!("{date}T{h:02}:{mi:02}:{s:02}.{us:06}"),
            }));
        }
        V::Time(neg, d, h, mi, s, us) => {
            let sign = if *neg { "-" } else { "" };
            let hours = u64::from(*d) * 24 + u64::from(*h);
            let frac = if *us > 0 {
                format!(".{us:06}")
            } else {
                String::new()
            };
            return Some(Value::String(format!(
                "{sign}{hours:02}:{mi:02}:{s:02}{frac}"
            )));
        }
        V::Bytes(bytes) => bytes,
    };
    let text = std::str::from_utf8(bytes).ok();
    match column.column_type() {
        T::MYSQL_TYPE_TINY if column.column_length() == 1 => {
            text.map(|t| Value::Bool(t.trim() != "0"))
        }
        T::MYSQL_TYPE_TINY
        | T::MYSQL_TYPE_SHORT
        | T::MYSQL_TYPE_LONG
        | T::MYSQL_TYPE_INT24
        | T::MYSQL_TYPE_LONGLONG
        | T::MYSQL_TYPE_YEAR
        | T::MYSQL_TYPE_FLOAT
        | T::MYSQL_TYPE_DOUBLE
        | T::MYSQL_TYPE_DECIMAL
        | T::MYSQL_TYPE_NEWDECIMAL => {
            let text = text?.trim();
            match serde_json::from_str::<Number>(text) {
                Ok(n) => Some(Value::Number(n)),
                Err(_) => Some(Value::String(text.to_string())),
            }
        }
        T::MYSQL_TYPE_DATETIME
        | T::MYSQL_TYPE_TIMESTAMP
        | T::MYSQL_TYPE_DATETIME2
        | T::MYSQL_TYPE_TIMESTAMP2 => text.map(|t| Value::String(t.replacen(' ', "T", 1))),
        T::MYSQL_TYPE_JSON => {
            let text = text?;
            Some(serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string())))
        }
        T::MYSQL_TYPE_BIT => {
            let n = bytes.iter().fold(0u64, |n, b| (n << 8) | u64::from(*b));
            Some(Value::Number(n.into()))
        }
        T::MYSQL_TYPE_GEOMETRY => None,
        _ if column.character_set() == BINARY_CHARSET
            && column.flags().contains(ColumnFlags::BINARY_FLAG)
            && !matches!(
                column.column_type(),
                T::MYSQL_TYPE_DATE | T::MYSQL_TYPE_TIME | T::MYSQL_TYPE_NEWDATE
            ) =>
        {
            None
        }
        _ => text.map(|t| Value::String(t.to_string())),
    }
}

fn mysql_tables(dsn: &Dsn) -> Result<Vec<String>, ImportError> {
    use mysql::prelude::Queryable;

    let mut conn = mysql_conn(dsn)?;
    let names: Vec<mysql::Value> = conn
        .query(
            "SELECT IF(table_schema = DATABASE(), table_name, \
             CONCAT(table_schema, '.', table_name)) AS name \
             FROM information_schema.tables \
             WHERE table_schema = DATABASE() OR (DATABASE() IS NULL AND table_schema NOT IN \
             ('mysql', 'information_schema', 'performance_schema', 'sys')) ORDER BY 1",
        )
        .map_err(|e| dsn.failed(&e.to_string()))?;
    Ok(names
        .into_iter()
        .filter_map(|v| match v {
            mysql::Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
            _ => None,
        })
        .collect())
}

// ---- Redis ---------------------------------------------------------------------------------

fn redis_conn(dsn: &Dsn) -> Result<redis::Connection, ImportError> {
    let client = redis::Client::open(dsn.secret()).map_err(|e| dsn.refused(&e.to_string()))?;
    let mut conn = client
        .get_connection_with_timeout(timeout())
        .map_err(|e| dsn.refused(&e.to_string()))?;
    // A wrong password may only show at the first command.
    redis::cmd("PING")
        .query::<String>(&mut conn)
        .map_err(|e| dsn.refused(&e.to_string()))?;
    Ok(conn)
}

/// Every key matching `pattern`, sorted; more than `max` is [`ImportError::TooLarge`].
fn redis_keys(
    dsn: &Dsn,
    conn: &mut redis::Connection,
    pattern: &str,
    max: usize,
) -> Result<Vec<Vec<u8>>, ImportError> {
    let mut keys = std::collections::BTreeSet::new();
    let mut cursor: u64 = 0;
    loop {
        let (next, batch): (u64, Vec<Vec<u8>>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(pattern)
            .arg("COUNT")
            .arg(1000)
            .query(conn)
            .map_err(|e| dsn.failed(&e.to_string()))?;
        keys.extend(batch);
        if keys.len() > max {
            return Err(ImportError::TooLarge(format!(
                "more than {max} keys match {pattern:?}, the most one import takes"
            )));
        }
        if next == 0 {
            break;
        }
        cursor = next;
    }
    Ok(keys.into_iter().collect())
}

fn redis_rows(dsn: &Dsn, query: Option<&str>, cap: Cap) -> Result<Vec<Row>, ImportError> {
    let pattern = query
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .unwrap_or("*");
    let mut conn = redis_conn(dsn)?;
    let keys = redis_keys(dsn, &mut conn, pattern, REDIS_SCAN_MAX.max(cap.max))?;
    let failed = |e: redis::RedisError| dsn.failed(&e.to_string());
    let mut rows = Vec::new();
    for key in keys {
        let kind: String = redis::cmd("TYPE")
            .arg(&key)
            .query(&mut conn)
            .map_err(failed)?;
        let mut row = Map::new();
        match kind.as_str() {
            "hash" => {
                let flat: Vec<Vec<u8>> = redis::cmd("HGETALL")
                    .arg(&key)
                    .query(&mut conn)
                    .map_err(failed)?;
                for pair in flat.chunks(2) {
                    if let [field, value] = pair {
                        if let Ok(value) = std::str::from_utf8(value) {
                            row.insert(
                                String::from_utf8_lossy(field).into_owned(),
                                Value::String(value.to_string()),
                            );
                        }
                    }
                }
            }
            "string" => {
                let bytes: Option<Vec<u8>> = redis::cmd("GET")
                    .arg(&key)
                    .query(&mut conn)
                    .map_err(failed)?;
                let Some(text) = bytes.and_then(|b| String::from_utf8(b).ok()) else {
                    continue;
                };
                let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
                row.insert("value".to_string(), value);
            }
            "list" | "set" | "zset" => {
                let command = match kind.as_str() {
                    "list" => redis::cmd("LRANGE").arg(&key).arg(0).arg(-1).clone(),
                    "set" => redis::cmd("SMEMBERS").arg(&key).clone(),
                    _ => redis::cmd("ZRANGE").arg(&key).arg(0).arg(-1).clone(),
                };
                let mut members: Vec<Vec<u8>> = command.query(&mut conn).map_err(failed)?;
                if kind == "set" {
                    members.sort();
                }
                let members = members
                    .into_iter()
                    .filter_map(|m| String::from_utf8(m).ok().map(Value::String))
                    .collect();
                row.insert("value".to_string(), Value::Array(members));
            }
            // Streams, modules' types, a key gone since the scan: nothing to import.
            _ => continue,
        }
        row.insert(
            "_key".to_string(),
            Value::String(String::from_utf8_lossy(&key).into_owned()),
        );
        if cap.push(&mut rows, row)? {
            break;
        }
    }
    Ok(rows)
}

/// The key prefixes of the database: each key's text up to its first `:` as `prefix:*`, a
/// key without `:` as itself.
fn redis_prefixes(dsn: &Dsn) -> Result<Vec<String>, ImportError> {
    let mut conn = redis_conn(dsn)?;
    let keys = redis_keys(dsn, &mut conn, "*", REDIS_SCAN_MAX)?;
    let mut prefixes: BTreeMap<String, usize> = BTreeMap::new();
    for key in keys {
        let key = String::from_utf8_lossy(&key).into_owned();
        let name = match key.split_once(':') {
            Some((prefix, _)) => format!("{prefix}:*"),
            None => key,
        };
        *prefixes.entry(name).or_default() += 1;
    }
    Ok(prefixes.into_keys().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_is_a_table_a_schema_table_or_one_select() {
        assert_eq!(
            select_sql(Some("notes"), '"', "postgres").unwrap(),
            "SELECT * FROM \"notes\""
        );
        assert_eq!(
            select_sql(Some("app.notes"), '`', "mysql").unwrap(),
            "SELECT * FROM `app`.`notes`"
        );
        assert_eq!(
            select_sql(Some("select id from notes;\n"), '"', "postgres").unwrap(),
            "select id from notes"
        );
        for bad in ["DELETE FROM notes", "", "drop table x"] {
            assert!(select_sql(Some(bad), '"', "postgres").is_err(), "{bad}");
        }
    }
}
