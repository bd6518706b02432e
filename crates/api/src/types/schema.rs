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

/// How a second schema is made of a body's attributes (the `pub static NAME = Derive {…}` of
/// [`wsme_body!`](crate::types)): the same attributes in the same order, less `leave_out`,
/// each optional when `optional` (as a PUT declares a POST's), `retype`'s attribute of its
/// own kind.
#[derive(Debug, Clone, Copy)]
pub struct Derive {
    /// Attributes the derived schema does not declare.
    pub leave_out: &'static [&'static str],
    /// Every attribute neither mandatory nor null-passing ([`f`]).
    pub optional: bool,
    /// One attribute declared with another kind.
    pub retype: Option<(&'static str, Kind)>,
}

/// The copy a PUT declares of a POST's attributes: the same, all optional.
pub const ALL_OPTIONAL: Derive = Derive {
    leave_out: &[],
    optional: true,
    retype: None,
};

/// `a == b`, in a `const fn`.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `how` keeps the attribute `name`.
const fn kept(name: &str, how: &Derive) -> bool {
    let mut i = 0;
    while i < how.leave_out.len() {
        if same(name, how.leave_out[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// How many of `from` `how` keeps: the length [`derive()`] is given.
pub const fn derived_len(from: &[Field], how: &Derive) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < from.len() {
        if kept(from[i].name, how) {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The first `N` attributes of `from` that `how` keeps, changed as `how` says.
pub const fn derive<const N: usize>(from: &[Field], how: &Derive) -> [Field; N] {
    let mut out = [f("", Kind::Bool); N];
    let (mut i, mut j) = (0, 0);
    while i < from.len() && j < N {
        let mut field = from[i];
        if kept(field.name, how) {
            if how.optional {
                field.mandatory = false;
                field.null_passes = false;
            }
            if let Some((name, kind)) = how.retype
                && same(field.name, name)
            {
                field.kind = kind;
            }
            out[j] = field;
            j += 1;
        }
        i += 1;
    }
    out
}

/// Declares a request body once: the WSME [`Schema`] it is parsed with, the typed struct it
/// is read into, and the schemas [`Derive`]d of the same attributes (a PUT's, a graph
/// create's). Each attribute is written `name: Type = ctor(kind)` — the struct field (left
/// out of a body: its `Default`), the JSON key ([`attr_name`] of the field), and the schema
/// entry ([`f`], [`m`] or [`mn`] of its [`Kind`]), in the order WSME checks them. Each field's
/// doc starts with its WSME declaration; a doc written in the list adds what the type does not
/// say (units, what `null` means). The struct's `FIELDS` are the first schema's attributes;
/// `wsme = (arg, wrapper)` makes it a [`WsmeBody`](crate::types::WsmeBody), read by a
/// handler's [`Wsme`](crate::types::Wsme).
///
/// An attribute stored in a column of the resource's row says so after its kind:
/// `=> column`, then `or default` (the value written without one: a create's left-out or
/// `null` attribute, a PUT's `null`) and `null value` (a `null` written otherwise), both
/// literals ([`column`](crate::types::column) has the rule). `creates = Row` generates
/// `write_row(&self, &mut Row)` (a create's row: each declared column of the body), `updates =
/// Row` `column_changes(&self) -> Vec<(column, SqlValue)>` (a PUT's, the attributes sent) and
/// `nulls_resolved(&self) -> Self` (each declared `null` replaced, for the driver's model); the
/// columns are checked to be fields of `Row`. What is not an attribute's plain value (ids,
/// statuses, parents, the project, computed defaults) the handler writes; `member/body.rs`
/// declares both kinds.
///
/// ```ignore
/// wsme_body! {
///     /// `QuotaPUT`.
///     pub static QUOTA_PUT, tenant_alias = false, wsme = ("quotas", "quota");
///     /// A validated `QuotaPUT` body.
///     pub struct QuotaPut {
///         load_balancer: Patch<i64> = f(QUOTA),
///     }
///     /// `QuotaPUT`'s attributes, all optional.
///     pub static OTHER = Derive { leave_out: &[], optional: true, retype: None },
///         tenant_alias = false;
/// }
/// ```
macro_rules! wsme_body {
    (
        $(#[$smeta:meta])*
        pub static $schema:ident, tenant_alias = $alias:literal
            $(, wsme = ($arg:literal, $wrapper:literal))?
            $(, creates = $crow:ty)? $(, updates = $urow:ty)?;
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty = $ctor:ident ( $kind:expr )
                    $(=> $column:ident $(or $default:literal)? $(null $null:literal)?)?
            ),* $(,)?
        }
        $(
            $(#[$dmeta:meta])*
            pub static $derived:ident = $how:expr, tenant_alias = $dalias:literal;
        )*
    ) => {
        $(#[$smeta])*
        pub static $schema: $crate::types::Schema = $crate::types::Schema {
            fields: $name::FIELDS,
            tenant_alias: $alias,
        };

        $(
            $(#[$dmeta])*
            pub static $derived: $crate::types::Schema = $crate::types::Schema {
                fields: &$crate::types::derive::<
                    { $crate::types::derived_len($name::FIELDS, &$how) },
                >($name::FIELDS, &$how),
                tenant_alias: $dalias,
            };
        )*

        $(#[$meta])*
        #[derive(Debug, Clone, Default, serde::Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct $name {
            $(
                #[doc = concat!("WSME: `", stringify!($ctor), "(", stringify!($kind), ")`.")]
                $(#[doc = concat!("Column `", stringify!($column), "`",
                    $(", without a value `", stringify!($default), "`",)?
                    $(", `null`: `", stringify!($null), "`",)? ".")])?
                $(#[$fmeta])*
                pub $field: $ty,
            )*
        }

        $(
            impl $crate::types::WsmeBody for $name {
                const ARG: &'static str = $arg;
                const WRAPPER: &'static str = $wrapper;
                const SCHEMA: &'static $crate::types::Schema = &$schema;
            }
        )?

        impl $name {
            #[doc = concat!("The attributes in WSME's order, as [`", stringify!($schema),
                "`] declares them.")]
            pub const FIELDS: &'static [$crate::types::Field] = &[$(
                $crate::types::$ctor($crate::types::attr_name(stringify!($field)), $kind)
            ),*];
        }

        $crate::types::wsme_body!(@rows $name, [$($crow)?], [$($urow)?],
            $($field $(=> $column $(or $default)? $(null $null)?)?),*);
    };
    (@rows $name:ident, [], [], $($rest:tt)*) => {};
    (@rows $name:ident, [$row:ty], [],
        $($field:ident $(=> $column:ident $(or $default:literal)? $(null $null:literal)?)?),*) => {
        impl $name {
            #[doc = concat!("Writes each attribute declared with a column into `row` (a new `",
                stringify!($row), "`): the value sent, else the declared `null` value or ",
                "default ([`crate::types::column`]).")]
            pub(crate) fn write_row(&self, row: &mut $row) {
                $($(
                    row.$column = $crate::types::column::on_create(
                        &self.$field,
                        $crate::types::declared!($($default)?),
                        $crate::types::declared!($($null)?),
                    );
                )?)*
            }
        }
    };
    (@rows $name:ident, [], [$row:ty],
        $($field:ident $(=> $column:ident $(or $default:literal)? $(null $null:literal)?)?),*) => {
        impl $name {
            #[doc = concat!("The `", stringify!($row), "` column changes of the attributes ",
                "sent with a column declared, in declaration order: the value, or for a `null` ",
                "the declared value else NULL ([`crate::types::column`]).")]
            pub(crate) fn column_changes(&self) -> Vec<(&'static str, octavia_db::SqlValue)> {
                // each declared column is a field of the row
                let _columns_of_the_row = |r: &$row| { $($(let _ = &r.$column;)?)* };
                let mut ch = Vec::new();
                $($(
                    if let Some(v) = $crate::types::column::on_put(
                        &self.$field,
                        $crate::types::declared!($($default)?),
                        $crate::types::declared!($($null)?),
                    ) {
                        ch.push(($crate::types::attr_name(stringify!($column)), v));
                    }
                )?)*
                ch
            }

            /// The body with each `null` that has a declared value replaced by it: what the
            /// provider's update model is given.
            pub(crate) fn nulls_resolved(&self) -> Self {
                let mut r = self.clone();
                $($(
                    let _ = stringify!($column);
                    r.$field = $crate::types::column::on_put_model(
                        &self.$field,
                        $crate::types::declared!($($default)?),
                        $crate::types::declared!($($null)?),
                    );
                )?)*
                r
            }
        }
    };
}
pub(crate) use wsme_body;
