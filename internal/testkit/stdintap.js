// Preloaded into a Node.js program by the tests (NODE_OPTIONS="--require
// <this file>", see StdinTap in stdintap.go): appends each chunk the
// program reads on its stdin to the file STDIN_TAP names, so that a test
// can wait until a request has reached the program instead of sleeping.
// The program is otherwise unchanged.
'use strict';
const fs = require('fs');
const stdin = process.stdin;
const push = stdin.push;
stdin.push = function (chunk, ...rest) {
  if (chunk) fs.appendFileSync(process.env.STDIN_TAP, chunk);
  return push.call(this, chunk, ...rest);
};
