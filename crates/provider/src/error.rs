use thiserror::Error;

/// What a provider driver may raise from a synchronous call.
///
/// As octavia-lib `exceptions.py`; the API maps each variant once, at its edge
/// (as `octavia/api/drivers/utils.py` `call_provider`):
/// - [`ProviderError::UnsupportedOption`] → 501 `Provider '<p>' does not support a requested option: <user>`
/// - [`ProviderError::NotImplemented`] → 501 `Provider '<p>' does not support a requested action: <user>`
/// - [`ProviderError::Conflict`] → 409 `The VIP IP address is already in use: <user>`
/// - [`ProviderError::Driver`] → 500 `Provider '<p>' reports error: <user>`
/// - [`ProviderError::Unavailable`] → 503 `The <service> service is temporarily unavailable.`
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProviderError {
    /// A requested option is not supported by this provider (octavia-lib `UnsupportedOptionError`).
    #[error("{user_fault_string}")]
    UnsupportedOption {
        /// Text shown to the API user.
        user_fault_string: String,
        /// Text for the operator's log.
        operator_fault_string: String,
    },
    /// The action is not implemented by this provider (octavia-lib `NotImplementedError`).
    #[error("{user_fault_string}")]
    NotImplemented {
        /// Text shown to the API user.
        user_fault_string: String,
        /// Text for the operator's log.
        operator_fault_string: String,
    },
    /// The provider had a resource conflict (octavia-lib `Conflict`), e.g. a VIP address in use.
    #[error("{user_fault_string}")]
    Conflict {
        /// Text shown to the API user.
        user_fault_string: String,
        /// Text for the operator's log.
        operator_fault_string: String,
    },
    /// Any other driver failure (octavia-lib `DriverError`).
    #[error("{user_fault_string}")]
    Driver {
        /// Text shown to the API user.
        user_fault_string: String,
        /// Text for the operator's log.
        operator_fault_string: String,
    },
    /// A service the provider needs cannot be reached now (Keel's addition; octavia-lib has
    /// no such error and the reference answers 500 or accepts work it cannot do). Nothing was
    /// changed or queued; the API answers 503 `The <service> service is temporarily
    /// unavailable.`
    #[error("The {service} service is temporarily unavailable.")]
    Unavailable {
        /// The service's name as shown to the client, e.g. `OVN Northbound`, `Neutron`.
        service: String,
        /// What failed, for the operator's log.
        operator_fault_string: String,
    },
}

impl ProviderError {
    /// An [`ProviderError::UnsupportedOption`] with the same text for user and operator.
    pub fn unsupported(text: impl Into<String>) -> Self {
        let t = text.into();
        Self::UnsupportedOption {
            user_fault_string: t.clone(),
            operator_fault_string: t,
        }
    }

    /// A [`ProviderError::NotImplemented`] with the same text for user and operator.
    pub fn not_implemented(text: impl Into<String>) -> Self {
        let t = text.into();
        Self::NotImplemented {
            user_fault_string: t.clone(),
            operator_fault_string: t,
        }
    }

    /// A [`ProviderError::Driver`] with the same text for user and operator.
    pub fn driver(text: impl Into<String>) -> Self {
        let t = text.into();
        Self::Driver {
            user_fault_string: t.clone(),
            operator_fault_string: t,
        }
    }

    /// A [`ProviderError::Unavailable`] for `service` (e.g. `OVN Northbound`).
    pub fn unavailable(service: impl Into<String>, why: impl Into<String>) -> Self {
        Self::Unavailable {
            service: service.into(),
            operator_fault_string: why.into(),
        }
    }

    /// A [`ProviderError::Conflict`] with the same text for user and operator.
    pub fn conflict(text: impl Into<String>) -> Self {
        let t = text.into();
        Self::Conflict {
            user_fault_string: t.clone(),
            operator_fault_string: t,
        }
    }
}
