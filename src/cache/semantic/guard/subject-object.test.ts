import { describe } from 'vitest';
import { itFollowsTable } from './rule-table.ts';
import { objectAsSubject } from './subject-object.ts';

describe('objectAsSubject', () => {
  itFollowsTable(objectAsSubject, [
    // A subject question against an object question.
    ['What eats a hawk?', 'What does a hawk eat?', 'swapped'],
    // The thing asked about named, the subject two words long (RULE159).
    ['What do tarsiers eat in the wild?', 'What animals eat tarsiers in the wild?', 'swapped'],
    ['Which animals eat slow lorises?', 'Which animals do slow lorises eat?', 'swapped'],
    [
      'Who did Serena Williams beat in the 2015 Wimbledon final?',
      'Who beat Serena Williams in the 2015 Wimbledon final?',
      'swapped',
    ],
    // A verb that takes its object through a preposition, left at the end on one side (RULE161).
    ['Which animals prey on fennec foxes?', 'Which animals do fennec foxes prey on?', 'swapped'],
    ['What do caterpillars feed on?', 'What feeds on caterpillars?', 'swapped'],
    // The same roles, the thing asked about named or not.
    ['What hunts koalas?', 'Which predators hunt koalas?', 'ok'],
    ['What do koalas eat?', 'What do koalas usually eat?', 'ok'],
    ['What do foxes prey on?', 'What do foxes hunt?', 'ok'],
    ['Which insects do bed bugs eat?', 'What insects do bed bugs eat?', 'ok'],
    // A word said twice is no verb with its object ("dik-diks").
    ['Which animals eat dik-diks?', 'What predators do dik-diks have?', 'ok'],
  ]);
});
