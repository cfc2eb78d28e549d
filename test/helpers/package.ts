// Names shared by the node suites, the package test and the e2e harness (which Node also runs directly, so this
// file imports nothing).

/** package.json's name: n8n names the package's node types `<package name>.<node name>`. */
export const PACKAGE_NAME = 'n8n-nodes-devdata';
