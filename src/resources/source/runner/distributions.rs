//! Which package on PyPI provides an importable module, for a test run that could not
//! import one: most often the package of the module's own name, and for the well-known
//! few whose names differ (`yaml` from PyYAML, `PIL` from Pillow) that one, so that the
//! install command a failure gives can be run as it stands.

/// Modules whose usual package has another name, by the module's top-level name.
const NAMED_OTHERWISE: &[(&str, &str)] = &[
    ("Crypto", "pycryptodome"),
    ("MySQLdb", "mysqlclient"),
    ("OpenSSL", "pyOpenSSL"),
    ("PIL", "Pillow"),
    ("attr", "attrs"),
    ("bs4", "beautifulsoup4"),
    ("cv2", "opencv-python"),
    ("dateutil", "python-dateutil"),
    ("docx", "python-docx"),
    ("dotenv", "python-dotenv"),
    ("git", "GitPython"),
    ("hamcrest", "PyHamcrest"),
    ("jose", "python-jose"),
    ("jwt", "PyJWT"),
    ("magic", "python-magic"),
    ("nacl", "PyNaCl"),
    ("pkg_resources", "setuptools"),
    ("pptx", "python-pptx"),
    ("railroad", "railroad-diagrams"),
    ("serial", "pyserial"),
    ("skimage", "scikit-image"),
    ("sklearn", "scikit-learn"),
    ("socks", "PySocks"),
    ("usb", "pyusb"),
    ("websocket", "websocket-client"),
    ("win32api", "pywin32"),
    ("yaml", "PyYAML"),
    ("zmq", "pyzmq"),
];

/// The package that usually provides the module of top-level name `top`: the one known to
/// provide it, else the package of its name.
pub(super) fn likely_package(top: &str) -> &str {
    NAMED_OTHERWISE
        .iter()
        .find(|(m, _)| *m == top)
        .map_or(top, |(_, package)| package)
}

#[cfg(test)]
mod tests {
    use super::likely_package;

    #[test]
    fn a_module_comes_from_its_own_name_unless_it_is_known_otherwise() {
        assert_eq!(likely_package("pretend"), "pretend");
        assert_eq!(likely_package("yaml"), "PyYAML");
        assert_eq!(likely_package("dateutil"), "python-dateutil");
    }
}
