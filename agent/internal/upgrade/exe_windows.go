package upgrade

const exeSuffix = ".exe"
