//! The declarative attribute tables the WSME gate is driven by: [`Schema`]s of [`Field`]s,
//! each of a [`Kind`] (as the `wtypes` attribute types of `octavia/api/v2/types/*.py`), and
//! the column bounds Octavia's database imposes where WSME declares none.

/// The largest value of an `INT` column (`delay`, `timeout`, `connection_limit`,
/// `hsts_max_age`, `persistence_timeout`): WSME declares no maximum, but a larger value could
/// only fail in the database (a 500); it is refused with WSME's range text instead.
pub const INT_COLUMN_MAX: i64 = i32::MAX as i64;
/// The smallest value of an `INT` column, the lower bound of the same fields where WSME
/// declares none (`persistence_timeout`, a graph's `hsts_max_age`).
pub const INT_COLUMN_MIN: i64 = i32::MIN as i64;
/// The width of the `varchar` column a comma-joined list is stored in (`tls_versions`,
/// `alpn_protocols`: `varchar(512)`).
pub const JOINED_COLUMN_MAX: usize = 512;
/// The width of `health_monitor.url_path` and `l7policy.redirect_url`/`redirect_prefix`
/// (`varchar(255)`): Octavia's `URLPathType`/`URLType` declare no length.
pub const URL_COLUMN_MAX: usize = 255;

/// The type of one attribute, as a WSME datatype.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// `wtypes.StringType(min_length, max_length)`.
    Str {
        /// Minimum length in characters.
        min: Option<usize>,
        /// Maximum length in characters.
        max: Option<usize>,
    },
    /// `wtypes.StringType(min_length, max_length, pattern=…)`: the lengths, then Python's
    /// `re.search` of Octavia's regex (`types::pattern::search`).
    Pattern {
        /// Octavia's regex text: run, and shown in the error.
        pattern: &'static str,
        /// Minimum length in characters.
        min: Option<usize>,
        /// Maximum length in characters.
        max: Option<usize>,
    },
    /// `wtypes.UuidType()`; normalised to the dashed lower-case form.
    Uuid,
    /// `wtypes.IntegerType(minimum, maximum)` (or plain `int`).
    Int {
        /// Inclusive minimum (`None`: unbounded).
        min: Option<i64>,
        /// Inclusive maximum (`None`: unbounded).
        max: Option<i64>,
    },
    /// `bool`, with WSME's string coercions.
    Bool,
    /// `float`.
    Float,
    /// `wtypes.Enum(float, …)`: coerced by `float()`, then one of the values
    /// (`http_version`: 1.0, 1.1).
    FloatEnum(&'static [f64]),
    /// `wtypes.Enum(str, …)`.
    Enum(&'static [&'static str]),
    /// Octavia `IPAddressType`.
    Ip,
    /// Octavia `CidrType` (normalised to network/prefix).
    Cidr,
    /// Octavia `URLPathType`.
    UrlPath,
    /// Octavia `URLType` (`validate.url`, scheme required): checked before the length of
    /// its `varchar(255)` column, as the reference validates it in WSME and only its write
    /// would meet the column.
    Url,
    /// Octavia `AlpnProtocolType`.
    Alpn,
    /// `wtypes.ArrayType(item)`.
    List(&'static Kind),
    /// `wtypes.ArrayType(item)` stored comma-joined in one `varchar(max)` column: the joined
    /// text is at most `max` characters (WSME has no such bound; a longer list could only
    /// fail in the database).
    Joined {
        /// The item type.
        item: &'static Kind,
        /// Maximum length of the items joined with `,`, in characters.
        max: usize,
    },
    /// `wtypes.DictType(str, StringType(max_length))`.
    StrDict(Option<usize>),
    /// A complex type.
    Object(&'static Schema),
    /// A list of a complex type.
    ObjectList(&'static Schema),
}

/// One attribute of a complex type.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// JSON key.
    pub name: &'static str,
    /// What the value must be, and how WSME coerces it.
    pub kind: Kind,
    /// WSME `mandatory=True`.
    pub mandatory: bool,
    /// Mandatory as WSME checks it (the key must be sent) with an explicit `null` passed on to
    /// the handler, where the reference gives that `null` its own answer. Without it a `null`
    /// counts as missing (the reference would fail later with a 500).
    pub null_passes: bool,
}

/// A WSME complex type: its attributes in declaration order.
#[derive(Debug)]
pub struct Schema {
    /// Declared attributes; any other key is refused (`Unknown attribute for argument`).
    pub fields: &'static [Field],
    /// Declares `project_id`, so `tenant_id` (≤36 chars) is accepted as its alias
    /// (Octavia `BaseMeta`; `tenant_id` wins when both are given).
    pub tenant_alias: bool,
}

/// Shorthand constructors for schema tables.
pub const fn f(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        mandatory: false,
        null_passes: false,
    }
}
/// A mandatory field.
pub const fn m(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        mandatory: true,
        null_passes: false,
    }
}
/// A mandatory field whose explicit `null` reaches the handler ([`Field::null_passes`]).
pub const fn mn(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        mandatory: true,
        null_passes: true,
    }
}
/// `StringType(max_length=n)`.
pub const fn s(max: usize) -> Kind {
    Kind::Str {
        min: None,
        max: Some(max),
    }
}
/// `IntegerType(minimum, maximum)`.
pub const fn int(min: Option<i64>, max: Option<i64>) -> Kind {
    Kind::Int { min, max }
}
/// `ArrayType(StringType(max_length=255))`, the type of `tags`.
pub const TAGS: Kind = Kind::List(&Kind::Str {
    min: None,
    max: Some(255),
});

/// The JSON key of a struct field declared in `wsme_body!`: the field's name, without the
/// `r#` of a raw identifier (`r#type` → `type`).
pub const fn attr_name(field: &'static str) -> &'static str {
    match field.as_bytes() {
        [b'r', b'#', ..] => field.split_at(2).1,
        _ => field,
    }
}

/// Declares a request body once: the WSME [`Schema`] it is parsed with and the typed struct it
/// is read into. Each attribute is written `name: Type = ctor(kind)` — the struct field (left
/// out of a body: its `Default`), the JSON key ([`attr_name`] of the field), and the schema
/// entry ([`f`], [`m`] or [`mn`] of its [`Kind`]), in the order WSME checks them. Each field's
/// doc starts with its WSME declaration; a doc written in the list adds what the type does not
/// say (units, what `null` means).
///
/// ```ignore
/// wsme_body! {
///     /// `QuotaPUT`.
///     pub static QUOTA_PUT, tenant_alias = false;
///     /// A validated `QuotaPUT` body.
///     pub struct QuotaPut {
///         /// `load_balancer`.
///         load_balancer: Patch<i64> = f(QUOTA),
///     }
/// }
/// ```
macro_rules! wsme_body {
    (
        $(#[$smeta:meta])*
        pub static $schema:ident, tenant_alias = $alias:literal;
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty = $ctor:ident ( $kind:expr )
            ),* $(,)?
        }
    ) => {
        $(#[$smeta])*
        pub static $schema: $crate::types::Schema = $crate::types::Schema {
            fields: &[$(
                $crate::types::$ctor($crate::types::attr_name(stringify!($field)), $kind)
            ),*],
            tenant_alias: $alias,
        };

        $(#[$meta])*
        #[derive(Debug, Clone, Default, serde::Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $(
                #[doc = concat!("WSME: `", stringify!($ctor), "(", stringify!($kind), ")`.")]
                $(#[$fmeta])*
                pub $field: $ty,
            )*
        }
    };
}
pub(crate) use wsme_body;
