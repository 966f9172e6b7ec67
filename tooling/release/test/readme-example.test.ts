import { describe, expect, it } from 'vitest';
import { readmeQuickStart } from '../src/readme-example.js';

const fence = '```';

describe('readmeQuickStart', () => {
  it('finds the install line and the first ts example', () => {
    const readme = `# @kraft/raft\n\n${fence}sh\nnpm i @kraft/raft @kraft/records\n${fence}\n\n${fence}ts\nconsole.log(1);\n${fence}\n\n${fence}ts\nsecond();\n${fence}\n`;
    expect(readmeQuickStart(readme, '@kraft/raft')).toEqual({
      installedPackages: ['@kraft/raft', '@kraft/records'],
      example: 'console.log(1);\n',
    });
  });

  it('refuses a README without an install line for the package, or without an example', () => {
    const example = `${fence}ts\nconsole.log(1);\n${fence}\n`;
    expect(() => readmeQuickStart(example, '@kraft/log')).toThrow(/npm i @kraft\/log/);
    expect(() =>
      readmeQuickStart(`${fence}sh\nnpm i @kraft/raft\n${fence}\n${example}`, '@kraft/log'),
    ).toThrow(/npm i @kraft\/log/);
    expect(() => readmeQuickStart(`${fence}sh\nnpm i @kraft/log\n${fence}\n`, '@kraft/log')).toThrow(
      /no ts example/,
    );
  });
});
