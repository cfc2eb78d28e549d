const path = require('node:path');
const { task, src, dest } = require('gulp');

// tsc compiles the code; the node and credential icons are copied beside it.
task('build:icons', function copyIcons() {
  return src(['nodes/**/*.{png,svg}', 'credentials/**/*.{png,svg}'], { base: '.', encoding: false }).pipe(
    dest(path.resolve('dist')),
  );
});
