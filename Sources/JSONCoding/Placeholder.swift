enum JSONCodingPlaceholder {}
