import { describe } from 'vitest';
import { swappedIdentifiers } from './identifiers.ts';
import { itFollowsTable } from './rule-table.ts';

describe('swappedIdentifiers', () => {
  itFollowsTable(swappedIdentifiers, [
    // An identifier only one side names is context ("in SQL").
    [
      'What is the difference between INNER JOIN and LEFT JOIN?',
      'How does a left join differ from an inner join in SQL?',
      'ok',
    ],
    ['How do I renew my US passport by mail?', 'Renewing a U.S. passport by mail: how?', 'ok'],
    ['What does useEffect do in React?', 'What does useMemo do in React?', 'identifiers'],
    ['How do I call os.path.join?', 'How do I call os.path.split?', 'identifiers'],
    ['What foods help lower LDL cholesterol?', 'What foods help lower HDL cholesterol?', 'identifiers'],
  ]);
});
