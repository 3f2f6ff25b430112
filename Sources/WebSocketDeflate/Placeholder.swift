enum DeflatePlaceholder {}
