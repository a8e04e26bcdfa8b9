// A small script, shown read-only with highlighting.
export function greet(name) {
  const message = `Hello, ${name}!`;
  return message;
}
