import { beforeAll, describe, expect, it } from 'vitest';
import { loadEnglishWords } from './guard/english-words.ts';
import { loadWordnet } from './guard/wordnet.ts';
import { alignWording } from './wording.ts';

beforeAll(async () => {
  await Promise.all([loadEnglishWords(), loadWordnet()]);
});

describe('alignWording', () => {
  it.each([
    // Apostrophes, contractions and words written joined or apart.
    [
      "I've got a cold; what should I take?",
      'Ive got a cold; what should I take?',
      "I've got a cold; what should I take?",
    ],
    ["Why won't my phone charge?", 'Why will not my phone charge?', "Why won't my phone charge?"],
    ['What is the fix?', "What's the fix?", 'What is the fix?'],
    ['How do I log in to Teams?', 'How do I login to Teams?', 'How do I log in to Teams?'],
    // An ampersand between two letters, written as the cached "and", apart from both.
    [
      'Is a B and B cheaper than a hotel?',
      'Is a B&B cheaper than a hotel?',
      'Is a B and B cheaper than a hotel?',
    ],
    [
      'What board games suit two players?',
      'What boardgames suit two players?',
      'What board games suit two players?',
    ],
    // Acronyms spelt out in the other question, either way round; camelCase counts.
    ['How do I fix a Blue Screen of Death?', 'How do I fix a BSOD?', 'How do I fix a Blue Screen of Death?'],
    [
      'How do I report a scam to the BBB?',
      'How do I report a scam to the Better Business Bureau?',
      'How do I report a scam to the BBB?',
    ],
    ['What is cash basis in QuickBooks?', 'What is cash basis in QB?', 'What is cash basis in QuickBooks?'],
    // A compound word's two parts each give a letter (RULE74): "Northwest", "homeowners".
    [
      'When should I plant garlic in the Pacific Northwest?',
      'When should I plant garlic in the PNW?',
      'When should I plant garlic in the Pacific Northwest?',
    ],
    [
      'Can my HOA fine me for parking in my own driveway?',
      'Can my homeowners association fine me for parking in my own driveway?',
      'Can my HOA fine me for parking in my own driveway?',
    ],
    // An airport's code against its name or its city (AIRPORT_CODES, RULE75), either way round;
    // two codes, or a code beside another airport's name, stay.
    [
      "I'm flying into Los Angeles International Airport; can I drive a rental car to Mexico?",
      "I'm flying into LAX; can I drive a rental car to Mexico?",
      "I'm flying into Los Angeles International Airport; can I drive a rental car to Mexico?",
    ],
    [
      'We land at SEA at 9; is there time to reach the cruise port by noon?',
      'We land at Seattle-Tacoma airport at 9; is there time to reach the cruise port by noon?',
      'We land at SEA at 9; is there time to reach the cruise port by noon?',
    ],
    [
      "What's the fastest way from Heathrow to central London?",
      "What's the fastest way from LHR to central London?",
      "What's the fastest way from Heathrow to central London?",
    ],
    [
      "I'm flying LAX to JFK; is a 1 hr layover in Denver enough?",
      "I'm flying Los Angeles to New York JFK; is a 1 hr layover in DEN enough?",
      "I'm flying LAX to JFK; is a 1 hr layover in Denver enough?",
    ],
    [
      'Which terminal does Delta use at LAX?',
      'Which terminal does Delta use at JFK?',
      'Which terminal does Delta use at JFK?',
    ],
    [
      "What's the fastest way from Gatwick to central London?",
      "What's the fastest way from LHR to central London?",
      "What's the fastest way from LHR to central London?",
    ],
    // A spelling-out never ends on the word the acronym's own side writes right after it (one-letter
    // words aside), and looks on for another way to spell it (RULE99): "Mbps but" is no "MB/s but".
    [
      'Our office internet is 100 Mbps but big downloads crawl along',
      'Our office internet is 100 MB/s but big downloads crawl along',
      'Our office internet is 100 MB/s but big downloads crawl along',
    ],
    [
      'I live in the Pacific Northwest where it rains constantly; what stain should I use?',
      'I live in the PNW where it rains constantly; what stain should I use?',
      'I live in the Pacific Northwest where it rains constantly; what stain should I use?',
    ],
    [
      "What's the refund policy for PS Store purchases?",
      "What's the refund policy for PlayStation Store purchases?",
      "What's the refund policy for PS Store purchases?",
    ],
    [
      'Will these crampons fit a UK size 12 boot?',
      'Will these crampons fit a US size 12 boot?',
      'Will these crampons fit a US size 12 boot?',
    ],
    // A possessive "'s" is not the other side's "is" or "has" where the word after it is one the
    // other side writes elsewhere (RULE100); a contraction still is, and so is a pronoun's "'s".
    [
      'My neighbor is making hay on my land for half the bales; what should go in our agreement?',
      "I'm making hay on my neighbor's land for half the bales; what should go in our agreement?",
      "I'm making hay on my neighbor's land for half the bales; what should go in our agreement?",
    ],
    [
      'The charging port on my phone is acting up; how do I fix it?',
      "How do I fix my phone's charging port?",
      "How do I fix my phone's charging port?",
    ],
    [
      "I'm setting up a home office and my router is in the basement; will a mesh system help?",
      "Setting up a home office, router's down in the basement; will a mesh system help?",
      'Setting up a home office, router is down in the basement; will a mesh system help?',
    ],
    [
      'What is the best way to descale it?',
      "What's the best way to descale it?",
      'What is the best way to descale it?',
    ],
    // A compound word alone spells out no acronym: one word, not camelCase.
    ['Is Lakewood a good place to live?', 'Is LW a good place to live?', 'Is LW a good place to live?'],
    // A spelling-out never ends on a connector ("Montana to" is not "MT"), and never takes a word
    // another acronym spelt out ("University" of "NYU" is not the "U" of "US").
    [
      'Is it a long drive from Montana to New York?',
      'Is it a long drive from MT to NY?',
      'Is it a long drive from Montana to New York?',
    ],
    [
      'I study at New York University; what did the United States export in 1950?',
      'I study at NYU; what did the US export in 1950?',
      'I study at New York University; what did the United States export in 1950?',
    ],
    [
      'How do I set up Single Sign-On for our apps?',
      'How do I set up SSO for our apps?',
      'How do I set up Single Sign-On for our apps?',
    ],
    // "how much is X" is "how much does X cost", either way round.
    [
      'Approximately how much does laser tag cost per person?',
      'approx how much is laser tag per person?',
      'Approximately how much does laser tag cost per person?',
    ],
    [
      'How much is a monthly bus pass in Seattle?',
      'How much does a monthly bus pass cost in Seattle?',
      'How much is a monthly bus pass in Seattle?',
    ],
    // A step reads what another wrote in the run before (RULE138): "Xmas" and "NYC" written out
    // first, then "how much is" the same words.
    [
      'Approximately how much does a real Christmas tree cost?',
      'Approx how much is a real Xmas tree?',
      'Approximately how much does a real Christmas tree cost?',
    ],
    [
      'How much does a round-trip ticket to New York City cost?',
      'How much is a round-trip ticket to NYC?',
      'How much does a round-trip ticket to New York City cost?',
    ],
    // A figure with letters written onto it is not the number alone (RULE138): "3x" is not
    // "threex", "2nd" not "twond" where the cached question writes "two" elsewhere ("3x a week"
    // is "three times a week" since RULE146, above).
    ['Is a three times zoom lens enough?', 'Is a 3x zoom lens enough?', 'Is a 3x zoom lens enough?'],
    [
      'We are expecting our second baby and our toddler will be two then; do we need more gates?',
      'We are expecting our 2nd baby and our toddler will be two then; do we need more gates?',
      'We are expecting our second baby and our toddler will be two then; do we need more gates?',
    ],
    // A plural written with "ys" for "ies" (RULE139).
    [
      'Can I eat juniper berries straight off the bush?',
      'Can I eat juniper berrys straight off the bush?',
      'Can I eat juniper berries straight off the bush?',
    ],
    [
      'How do I keep flies out of my kitchen?',
      'How do I keep flys out of my kitchen?',
      'How do I keep flies out of my kitchen?',
    ],
    // A weekday's short form is the plural too.
    [
      'What time does the pool open on Saturdays?',
      'What time does the pool open on Sat?',
      'What time does the pool open on Saturdays?',
    ],
    [
      'I live in US Department of Agriculture zone 6b',
      'I live in USDA zone 6b',
      'I live in US Department of Agriculture zone 6b',
    ],
    // Abbreviations, units and degrees.
    [
      'What is an approximate budget per week?',
      "what's an approx budget per wk?",
      'What is an approximate budget per week?',
    ],
    [
      'Bake at 350 degrees Fahrenheit for how long?',
      'Bake at 350F for how long?',
      'Bake at 350 degrees Fahrenheit for how long?',
    ],
    [
      'What is the pH of water at 25 degrees Celsius?',
      'What is the pH of water at 25°C?',
      'What is the pH of water at 25 degrees Celsius?',
    ],
    [
      'Visiting New York City with my parents',
      'Visiting NYC w/ my parents',
      'Visiting New York City with my parents',
    ],
    // A recipe's "c" after a figure is a cup; "=" is "equals"; "no. 2", "#2" and "number 2" are
    // one number in a series (RULE141).
    [
      'How many grams of fiber in 1 cup of cooked barley?',
      'How many g of fiber in 1 c of cooked barley?',
      'How many grams of fiber in 1 cup of cooked barley?',
    ],
    ['How much rice is 2 c dry?', 'How much rice is 2 cups dry?', 'How much rice is 2 c dry?'],
    [
      'How much fresh parsley equals 1 tablespoon of dried?',
      'How much fresh parsley = 1 tbsp dried?',
      'How much fresh parsley equals 1 tablespoon dried?',
    ],
    [
      'How much fresh parsley = 1 tbsp dried?',
      'How much fresh parsley equals 1 tablespoon of dried?',
      'How much fresh parsley = 1 tbsp of dried?',
    ],
    [
      "What's the difference between #2 and #4 grommets?",
      "What's the diff between no. 2 and no. 4 grommets?",
      "What's the difference between #2 and #4 grommets?",
    ],
    [
      'Is a No. 2 pencil softer than HB?',
      'Is a #2 pencil softer than HB?',
      'Is a No. 2 pencil softer than HB?',
    ],
    [
      'Is a #2 pencil softer than HB?',
      'Is a number 2 pencil softer than HB?',
      'Is a #2 pencil softer than HB?',
    ],
    [
      'Bake at 180 degrees Celsius for how long?',
      'Bake at 180 C for how long?',
      'Bake at 180 degrees Celsius for how long?',
    ],
    // "no" before a question word is "know" mistyped, where the cached question writes "know".
    [
      'How do I know if my parakeet is sick?',
      'How do I no if my parakeet is sick?',
      'How do I know if my parakeet is sick?',
    ],
    ['Is there no way to fix it?', 'Is there no way to fix it?', 'Is there no way to fix it?'],
    // A figure written with a k is not a number word ("$1k" never "$onek"); a price in words is
    // written as the price with its sign (RULE80).
    [
      'Best go-kart kit under $1k?',
      'Best go-kart kit under one thousand dollars?',
      'Best go-kart kit under $1k?',
    ],
    ['I make two thousand a month', 'I make 2k a month', 'I make 2k a month'],
    // Letters and a figure written together, letters with dots, a plural, a listed acronym.
    ['Can I check in before noon?', 'Can I check in b4 noon?', 'Can I check in before noon?'],
    [
      'What fruits help, for example with a cold?',
      'What fruits help, e.g. with a cold?',
      'What fruits help, for example with a cold?',
    ],
    [
      'My baby is 5 months old; is that normal?',
      'My baby is 5 mo old; is that normal?',
      'My baby is 5 months old; is that normal?',
    ],
    [
      'What pounds per square inch should my bike tires be?',
      'What PSI should my bike tires be?',
      'What pounds per square inch should my bike tires be?',
    ],
    [
      'My vet says she needs more vitamin D',
      'My vet says she needs more vit D',
      'My vet says she needs more vitamin D',
    ],
    // Numbers in figures and in words, either way round; "a" and "an" before the same word.
    [
      "We're moving from NJ to NC in August with 2 kids",
      "We're moving from NJ to NC in August with two kids",
      "We're moving from NJ to NC in August with 2 kids",
    ],
    [
      'Is first class worth it on the TGV?',
      'Is 1st class worth it on the TGV?',
      'Is first class worth it on the TGV?',
    ],
    ['How warm is a 3rd floor flat?', 'How warm is a third floor flat?', 'How warm is a 3rd floor flat?'],
    ['Should I max out an HSA?', 'Should I max out a HSA?', 'Should I max out an HSA?'],
    ['Do I need a LLC?', 'Do I need an LLC?', 'Do I need a LLC?'],
    [
      'Should I open an HSA this year?',
      'Should I open a health savings account this year?',
      'Should I open an HSA this year?',
    ],
    // Thousands with a k, either way round.
    [
      'I have a budget of about $1,000; which tools first?',
      'I have a budget of about $1k; which tools first?',
      'I have a budget of about $1,000; which tools first?',
    ],
    ['Is a 2k run a good start?', 'Is a 2,000 run a good start?', 'Is a 2k run a good start?'],
    ['I have $4,000 saved', 'I have $3k saved', 'I have $3k saved'],
    // British and American spellings.
    [
      'Is flavored yogurt safe for my baby?',
      'Is flavoured yoghurt safe for my baby?',
      'Is flavored yogurt safe for my baby?',
    ],
    [
      'Where can I take my mom in the fall?',
      'Where can I take my mum in the fall?',
      'Where can I take my mom in the fall?',
    ],
    // Typos, either side: a non-word one letter from a word (two in long words).
    [
      'What does the tire pressure light mean?',
      'What does the tire presure ligt mean?',
      'What does the tire pressure light mean?',
    ],
    [
      'Can I use baking soda instead of baking powder?',
      'Can I use bakng soda insted of baking powder?',
      'Can I use baking soda instead of baking powder?',
    ],
    [
      'Can you recommend a rear derailleur?',
      'can you reccomend a rear derailleur',
      'can you recommend a rear derailleur',
    ],
    ['Why was my payment declined?', 'Why was my payment decilned?', 'Why was my payment declined?'],
    ['Why is my car overheeting?', 'Why is my car overheating?', 'Why is my car overheeting?'],
    // A typo of an English word mends as it always has, even where WordNet knows it as a name.
    [
      'How do I fix a loose door handle?',
      'How do I fix a loose door handel?',
      'How do I fix a loose door handle?',
    ],
    // A typo of a name WordNet knows, capitalised or not, either side.
    [
      'Can I bring my guitar on a flight to Seattle?',
      'Can I bring my guitar on a flight to Seatle?',
      'Can I bring my guitar on a flight to Seattle?',
    ],
    [
      'Is Febuary a good month to visit Portugal?',
      'Is February a good month to visit portgual?',
      'Is Febuary a good month to visit Portugal?',
    ],
    [
      'How do I say thank you in spansih?',
      'How do I say thank you in Spanish?',
      'How do I say thank you in spansih?',
    ],
    // A typo of a word neither the English list nor WordNet's names has, either side (RULE150):
    // two neighbours swapped, a letter dropped or put in before the last, one vowel for another.
    ['How do I undo a git rebase?', 'How do I undo a git rebsae?', 'How do I undo a git rebase?'],
    [
      'Can I pair Blutooth headphones with a PS5?',
      'Can I pair Bluetooth headphones with a PS5?',
      'Can I pair Blutooth headphones with a PS5?',
    ],
    ['What is arashi shibori?', 'What is arashi shiborri?', 'What is arashi shibori?'],
    [
      'How do I buy a Shinkansen ticket at the machine?',
      'How do I buy a Shinkansan ticket at the machine?',
      'How do I buy a Shinkansen ticket at the machine?',
    ],
    ['How do I tie a Palomar knot?', 'How do I tie a palomer knot?', 'How do I tie a Palomar knot?'],
    // A century written short after its ordinal, either side, and pounds against "£" before the
    // same value (RULE151).
    [
      'How much is a 17th century warming pan worth?',
      'How much is a 17th c. warming pan worth?',
      'How much is a 17th century warming pan worth?',
    ],
    [
      "I'm shipping a 19th-c. tinderbox to a buyer; how should I pack it?",
      "I'm shipping a 19th-century tinderbox to a buyer; how should I pack it?",
      "I'm shipping a 19th-c. tinderbox to a buyer; how should I pack it?",
    ],
    [
      "What's the best cafetiere for under 20 pounds?",
      "What's the best cafetiere for under £20?",
      "What's the best cafetiere for under 20 pounds?",
    ],
    [
      'My builder quoted approx £45k for a loft conversion; is that fair?',
      'My builder quoted approximately 45,000 pounds for a loft conversion; is that fair?',
      'My builder quoted approx £45k for a loft conversion; is that fair?',
    ],
    // A contraction or synonym written twice, aligned both times, the case of each place kept
    // past the first (RULE155).
    [
      "I'm a vegan and I'm not sure about sweets; are Skittles vegan?",
      'I am a vegan and I am not sure about sweets; are Skittles vegan?',
      "I'm a vegan and I'm not sure about sweets; are Skittles vegan?",
    ],
    [
      "It's cold; is it safe if it's wet?",
      'It is cold; is it safe if it is wet?',
      "It's cold; is it safe if it's wet?",
    ],
    [
      'How do I clean the bowl and clean the lid?',
      'How do I wash the bowl and wash the lid?',
      'How do I clean the bowl and clean the lid?',
    ],
    // "deg" for an angle's degrees, "b/w" for "between" or "black and white", "mech" (RULE154).
    [
      'How do I draw a 60 degree angle with a set square?',
      'How do I draw a 60 deg angle w/ a set square?',
      'How do I draw a 60 degree angle with a set square?',
    ],
    [
      "What's the difference between an orrery and a tellurion?",
      "What's the diff b/w an orrery and a tellurion?",
      "What's the difference between an orrery and a tellurion?",
    ],
    [
      'How do I print black and white photos?',
      'How do I print b/w photos?',
      'How do I print black and white photos?',
    ],
    [
      "I'm a mechanical engineer; what tolerance can a lathe hold?",
      "I'm a mech engineer; what tolerance can a lathe hold?",
      "I'm a mechanical engineer; what tolerance can a lathe hold?",
    ],
    // A real word written for another (CONFUSED_WORDS), either side, with the words either side of
    // it the same: the question's start and end, and a typo beside it mended.
    [
      'How do I know what size helmet to buy?',
      'How do I know what size helmet to by?',
      'How do I know what size helmet to buy?',
    ],
    [
      'Do baby gates work for dogs too?',
      'Do baby gates work for dogs to?',
      'Do baby gates work for dogs too?',
    ],
    // More of them (RULE70).
    [
      'My farrier recommended egg bar shoes for his heels; what do they do?',
      'My farrier recommended egg bar shoes for his heals; what do they do?',
      'My farrier recommended egg bar shoes for his heels; what do they do?',
    ],
    [
      'How do I treat saddle sores on a mule?',
      'How do I treat saddle soars on a mule?',
      'How do I treat saddle sores on a mule?',
    ],
    ['Is a carom board hard to level?', 'Is a carom bored hard to level?', 'Is a carom board hard to level?'],
    // More of them (RULE134).
    [
      'Why does my parrot sound hoarse after a bath?',
      'Why does my parrot sound horse after a bath?',
      'Why does my parrot sound hoarse after a bath?',
    ],
    [
      'Should I peel the pears for a tart?',
      'Should I peal the pears for a tart?',
      'Should I peel the pears for a tart?',
    ],
    [
      'Will they hold the plane for me?',
      'Will they hold the plain for me?',
      'Will they hold the plane for me?',
    ],
    // More of them (RULE137).
    ['Is ginger ale gluten free?', 'Is ginger ail gluten free?', 'Is ginger ale gluten free?'],
    [
      'Where can I buy a pair of wool socks?',
      'Where can I buy a pear of wool socks?',
      'Where can I buy a pair of wool socks?',
    ],
    [
      'How do I separate egg yolks without breaking them?',
      'How do I separate egg yokes without breaking them?',
      'How do I separate egg yolks without breaking them?',
    ],
    // How often, written with "x" (RULE146).
    [
      'I sharpen on my whetstone about twice a week; how long will it last?',
      'I sharpen on my whetstone about 2x a week; how long will it last?',
      'I sharpen on my whetstone about twice a week; how long will it last?',
    ],
    [
      'How much protein do I need if I lift weights four times a week?',
      'How much protein do I need if I lift weights 4x a wk?',
      'How much protein do I need if I lift weights four times a week?',
    ],
    [
      'Can I take ibuprofen three times a day?',
      'Can I take ibuprofen 3x/day?',
      'Can I take ibuprofen three times a day?',
    ],
    [
      'Can I take ibuprofen 3x/day?',
      'Can I take ibuprofen three times a day?',
      'Can I take ibuprofen 3x/day?',
    ],
    // The items of one list in another order (RULE145).
    [
      'I take iron, vitamin D and calcium every day; which can I take together?',
      'I take calcium, vitamin D and iron every day; which can I take together?',
      'I take iron, vitamin D and calcium every day; which can I take together?',
    ],
    [
      'I have a pothos, a peace lily and a snake plant; which will do best in a dim room?',
      'I have a snake plant, a peace lily and a pothos; which will do best in a dim room?',
      'I have a pothos, a peace lily and a snake plant; which will do best in a dim room?',
    ],
    [
      'How do I convert cups into grams for flour, sugar, and butter?',
      'How do I convert cups into grams for butter, sugar and flour?',
      'How do I convert cups into grams for flour, sugar, and butter?',
    ],
    // An age written in full on one side and short on the other (RULE144).
    [
      'My baby is 6 months old; can she eat eggs?',
      'My baby is 6 mo; can she eat eggs?',
      'My baby is 6 months old; can she eat eggs?',
    ],
    [
      'My toddler (2 years old) grabs my thimbles; are they a choking hazard?',
      'My toddler (2 yrs) grabs my thimbles; are they a choking hazard?',
      'My toddler (2 years old) grabs my thimbles; are they a choking hazard?',
    ],
    [
      'My 2-month-old only naps on me; is that ok?',
      'My 2 mo only naps on me; is that ok?',
      'My 2-month-old only naps on me; is that ok?',
    ],
    [
      'Is that good for a 3-year-old Lab?',
      'Is that good for a 3 yr old Lab?',
      'Is that good for a 3-year-old Lab?',
    ],
    [
      'My dad is 80 and wants an annuity; is that a scam?',
      'My dad is 80 years old and wants an annuity; is that a scam?',
      'My dad is 80 and wants an annuity; is that a scam?',
    ],
    [
      'My son is nine years old; can he ride a bike?',
      'My son is 9 y/o; can he ride a bike?',
      'My son is nine years old; can he ride a bike?',
    ],
    // What a thing is for, asked in one frame and in another (RULE143).
    ['What is the purpose of doilies?', 'What are doilies used for?', 'What is the purpose of doilies?'],
    ['What are doilies used for?', 'What is the purpose of doilies?', 'What are doilies used for?'],
    ['What is the purpose of a bidet?', 'What is a bidet for?', 'What is the purpose of a bidet?'],
    ["What's star anise used for?", 'What do people use star anise for?', "What's star anise used for?"],
    [
      'What is the purpose of arrowroot in recipes?',
      "What's arrowroot even for in recipes?",
      'What is the purpose of arrowroot in recipes?',
    ],
    [
      "I'm new to baking; what is the point of cream of tartar?",
      "I'm new to baking; what's cream of tartar used for?",
      "I'm new to baking; what is the point of cream of tartar?",
    ],
    // Real words a slip of one key writes for a common one (RULE142).
    [
      'Why does Mars look red in the sky?',
      'Why dose Mars look red in the sky?',
      'Why does Mars look red in the sky?',
    ],
    [
      'How do I sharpen a meat cleaver at home?',
      'How do I sharpen a meat cleaver at hom?',
      'How do I sharpen a meat cleaver at home?',
    ],
    ['Is fenugreek the same as methi?', 'Is fenugreek the sane as methi?', 'Is fenugreek the same as methi?'],
    ['Why is my rye bread so gummy?', 'Why is my rye bred so gummy?', 'Why is my rye bread so gummy?'],
    // The word may stand elsewhere on both sides: the asked one writes it once more.
    [
      'Are cruises to Alaska good for kids too?',
      'Are cruises to Alaska good for kids to?',
      'Are cruises to Alaska good for kids too?',
    ],
    [
      'Is runing on a treadmill easier then walking?',
      'Is running on a treadmill easier than walking?',
      'Is runing on a treadmill easier then walking?',
    ],
    [
      'How warm should the brooder be in the first week?',
      'How warm should the brooder be in the firt weak?',
      'How warm should the brooder be in the first week?',
    ],
    [
      'Will the bolts harm a live cedar long-term?',
      'Will the bolts harm a live ceder long-term?',
      'Will the bolts harm a live cedar long-term?',
    ],
    // A word one with the cached one's in their most frequent senses (WordNet's first senses,
    // RULE62), between the same two words.
    [
      'Why does my sea glass look blurry in photos?',
      'Why does my sea glass look fuzzy in photos?',
      'Why does my sea glass look blurry in photos?',
    ],
    [
      'Is it better to rent or buy a student trombone?',
      'Is it better to lease or buy a student trombone?',
      'Is it better to rent or buy a student trombone?',
    ],
    [
      'How do I connect a pickup to my mandolin?',
      'How do I link a pickup to my mandolin?',
      'How do I connect a pickup to my mandolin?',
    ],
    // A word written short, some of its letters kept in order, either way (RULE72).
    [
      'Is a building permit required for a garden shed?',
      "Is a building permit req'd for a garden shed?",
      'Is a building permit required for a garden shed?',
    ],
    ['Which national parks allow dogs?', 'Which natl parks allow dogs?', 'Which national parks allow dogs?'],
    [
      'What is the std size of a door?',
      'What is the standard size of a door?',
      'What is the std size of a door?',
    ],
    [
      'Bldgs over 3 stories need sprinklers?',
      'Buildings over 3 stories need sprinklers?',
      'Bldgs over 3 stories need sprinklers?',
    ],
    // A name written short, both with one capital first, either way (RULE165).
    ['Jacaranda bloom time in Melb?', 'Jacaranda bloom time in Melbourne?', 'Jacaranda bloom time in Melb?'],
    [
      "I'm a PhD student in Queensland; where can I find dugong survey data?",
      "I'm a PhD student in Qld; where can I find dugong survey data?",
      "I'm a PhD student in Queensland; where can I find dugong survey data?",
    ],
    [
      'How long is the wait for a driving test in Manchester?',
      'How long is the wait for a driving test in Manc?',
      'How long is the wait for a driving test in Manchester?',
    ],
    // A speed written with a slash (RULE169).
    [
      'What is the top speed of a cheetah in kilometers per hour?',
      'What is the top speed of a cheetah in km/h?',
      'What is the top speed of a cheetah in kilometers per hour?',
    ],
    [
      'How fast does sound travel in water in m/s?',
      'How fast does sound travel in water in metres per second?',
      'How fast does sound travel in water in m/s?',
    ],
    [
      'Is gravity 9.8 meters per second squared everywhere on Earth?',
      'Is gravity 9.8 m/s² everywhere on Earth?',
      'Is gravity 9.8 meters per second squared everywhere on Earth?',
    ],
    // Short forms the read sets lost (RULE168).
    [
      'How often should I get eye exams with type 2 diabetes?',
      'How often should I get eye exams with T2 diabetes?',
      'How often should I get eye exams with type 2 diabetes?',
    ],
    [
      'Does a CO alarm need to be near the floor?',
      'Does a carbon monoxide alarm need to be near the floor?',
      'Does a CO alarm need to be near the floor?',
    ],
    ['How do I temper milk chocolate?', 'How do I temper milk choc?', 'How do I temper milk chocolate?'],
    // A phrase joined to a hand-written group (RULE166).
    [
      'What can I use instead of buttermilk in pancakes?',
      'What can I use in place of buttermilk in pancakes?',
      'What can I use instead of buttermilk in pancakes?',
    ],
    // A rare word of the English list one edit from a common one, its typo either way (RULE63).
    [
      'What wetsuit thickness do I need for 20°C water?',
      'What wetsuit thickness do I need for 20°C watter?',
      'What wetsuit thickness do I need for 20°C water?',
    ],
    [
      'How do I keep salami from sweating on a charcuterie bord?',
      'How do I keep salami from sweating on a charcuterie board?',
      'How do I keep salami from sweating on a charcuterie bord?',
    ],
    // A capitalised word of the list mistyped inside a name, between the same words, either side (RULE64).
    [
      'Does Windows support my printer?',
      'Does Windos support my printer?',
      'Does Windows support my printer?',
    ],
    [
      'How long does a Nissan Leaf take to charge on Level 2?',
      'How long does a Nissan Leaf take to charge on Levle 2?',
      'How long does a Nissan Leaf take to charge on Level 2?',
    ],
    [
      'Is busking allowed in Centrl Park?',
      'Is busking allowed in Central Park?',
      'Is busking allowed in Centrl Park?',
    ],
    // A comparison in one word against "more" / "most" and a word of its meaning, or "less" /
    // "least" and its opposite, either way round (RULE77).
    [
      'Which is less expensive, a foam or a latex mattress topper?',
      'Which is cheaper, a foam or a latex mattress topper?',
      'Which is less expensive, a foam or a latex mattress topper?',
    ],
    [
      'Which is cheaper to run, an oil-filled or a ceramic space heater?',
      'Which is less expensive to run, an oil-filled or a ceramic space heater?',
      'Which is cheaper to run, an oil-filled or a ceramic space heater?',
    ],
    [
      'What is the least noisy space heater?',
      'What is the quietest space heater?',
      'What is the least noisy space heater?',
    ],
    [
      'What is the hardest part of grading a comic book?',
      'What is the most difficult part of grading a comic book?',
      'What is the hardest part of grading a comic book?',
    ],
    [
      'Which office chair is more quiet?',
      'Which office chair is quieter?',
      'Which office chair is more quiet?',
    ],
    // A figure written for the word it sounds like, between the same words (RULE78); a "2" that
    // is a number stays.
    [
      'Is the Secretlab Titan good for posture?',
      'Is the Secretlab Titan good 4 posture?',
      'Is the Secretlab Titan good for posture?',
    ],
    [
      "What's the best way to learn Korean vocabulary?",
      "What's the best way 2 learn Korean vocabulary?",
      "What's the best way to learn Korean vocabulary?",
    ],
    [
      'Are noise-cancelling headphones safe for a 2 year old?',
      'Are noise-cancelling headphones safe 4 a 2 year old?',
      'Are noise-cancelling headphones safe for a 2 year old?',
    ],
    // A place's name written short as one of its own words, either way round (RULE79).
    [
      "I'm getting married in Las Vegas next month; where can I buy a ring near the Strip?",
      "I'm getting married in Vegas next month; where can I buy a ring near the Strip?",
      "I'm getting married in Las Vegas next month; where can I buy a ring near the Strip?",
    ],
    ['Vegas or Reno for a weekend?', 'Las Vegas or Reno for a weekend?', 'Vegas or Reno for a weekend?'],
    [
      'Is Vatican City open on Sundays?',
      'Is the Vatican open on Sundays?',
      'Is the Vatican City open on Sundays?',
    ],
    // A price in words against the same price in figures with a sign, either way round (RULE80).
    [
      'Is the national parks senior pass approximately eighty dollars?',
      'Is the national parks senior pass approximately $80?',
      'Is the national parks senior pass approximately eighty dollars?',
    ],
    [
      "What's the best synth under $1k?",
      "What's the best synth under one thousand dollars?",
      "What's the best synth under $1k?",
    ],
    ['Is a day pass thirty-five dollars?', 'Is a day pass $35?', 'Is a day pass thirty-five dollars?'],
    [
      'Can I live on $30k a year in Ohio?',
      'Can I live on thirty thousand dollars a year in Ohio?',
      'Can I live on $30k a year in Ohio?',
    ],
    // A clock time with "am" or "pm" against its part of the day or its name, either way round (RULE82).
    [
      "I'm a nurse on night shifts; how do I stay alert around 4 in the morning?",
      "I'm a nurse on night shifts; how do I stay alert around 4 AM?",
      "I'm a nurse on night shifts; how do I stay alert around 4 in the morning?",
    ],
    ['Is the pier busy at 7pm?', 'Is the pier busy at 7 in the evening?', 'Is the pier busy at 7pm?'],
    [
      'My ewe lambed at two in the morning; should I worry?',
      'My ewe lambed at 2am; should I worry?',
      'My ewe lambed at two in the morning; should I worry?',
    ],
    [
      'Does the bus run at 6:30 in the morning?',
      'Does the bus run at 6:30 a.m.?',
      'Does the bus run at 6:30 in the morning?',
    ],
    ['Is checkout at noon?', 'Is checkout at 12 pm?', 'Is checkout at noon?'],
    ['Is checkout at 12 PM?', 'Is checkout at 12 noon?', 'Is checkout at 12 PM?'],
    // A height in feet and inches written two ways, either way round; "deg F" / "°F" (RULE109).
    [
      "Which airline has the most legroom? I'm 6 foot 4 and dread long flights.",
      "Which airline has the most legroom? I'm 6'4 and dread long flights.",
      "Which airline has the most legroom? I'm 6 foot 4 and dread long flights.",
    ],
    [
      "I'm 5 feet 9 inches and 160 pounds; what BMX frame size?",
      "I'm 5 ft 9 and 160 pounds; what BMX frame size?",
      "I'm 5 feet 9 inches and 160 pounds; what BMX frame size?",
    ],
    [
      'What size cello for someone 5\'4"?',
      'What size cello for someone 5 feet 4 inches tall?',
      'What size cello for someone 5\'4"?',
    ],
    [
      'Best packraft for someone six foot four?',
      'Best packraft for someone 6ft4?',
      'Best packraft for someone six foot four?',
    ],
    [
      'Best snowboard for a beginner about 5 feet 10 inches tall?',
      'Best snowboard for a beginner about 5ft 10in tall?',
      'Best snowboard for a beginner about 5 feet 10 inches tall?',
    ],
    [
      'How long do meringues bake at 200 degrees Fahrenheit?',
      'How long do meringues bake at 200 deg F?',
      'How long do meringues bake at 200 degrees Fahrenheit?',
    ],
    ['Bake at 180°C or 200?', 'Bake at 180 deg. C or 200?', 'Bake at 180 °C or 200?'],
    [
      "I'm 5 feet 10 inches; what ice axe length?",
      "I'm 5 ft 10 in Denver; what ice axe length?",
      "I'm 5 feet 10 inches in Denver; what ice axe length?",
    ],
    // Informal and clipped forms as the words the cached question writes (RULE111).
    [
      'I want to surprise my husband with a weekend in the mountains; any ideas?',
      'I wanna surprise my hubby with a weekend in the mtns; any ideas?',
      'I want to surprise my husband with a weekend in the mountains; any ideas?',
    ],
    [
      "What's the best gumbo in New Orleans right now?",
      "What's the best gumbo in New Orleans rn?",
      "What's the best gumbo in New Orleans right now?",
    ],
    [
      'How many carbs are in a plantain?',
      'How many carbohydrates are in a plantain?',
      'How many carbs are in a plantain?',
    ],
    // A typo in a possessive's word, against another possessive (RULE110).
    [
      "My toddler's shoe got caught at the edge of an escalator; who is responsible?",
      "My todler's shoe got caught at the edge of an escalator; who is responsible?",
      "My toddler's shoe got caught at the edge of an escalator; who is responsible?",
    ],
    [
      "What did a drawbridge operator's typical shift look like?",
      "What did a drawbridge operater's typicl shift look like?",
      "What did a drawbridge operator's typical shift look like?",
    ],
    // A compass point written short in capitals against it spelt out, either way round (RULE88).
    [
      'My flat has a north-facing window; which herbs grow well there?',
      'My flat has a N-facing window; which herbs grow well there?',
      'My flat has a north-facing window; which herbs grow well there?',
    ],
    [
      'How much lime does a lawn in the Pacific NW need?',
      'How much lime does a lawn in the Pacific Northwest need?',
      'How much lime does a lawn in the Pacific NW need?',
    ],
    [
      'Do I need an international permit to drive in South Korea?',
      'Do I need an international permit to drive in S. Korea?',
      'Do I need an international permit to drive in South Korea?',
    ],
    [
      'Where can I go sandboarding in the SW US?',
      'Where can I go sandboarding in the southwestern US?',
      'Where can I go sandboarding in the SW US?',
    ],
    // A number and a half in words against the same number with ".5", either way round (RULE85).
    [
      "My son is 15 and a half; what does he need to apply for a learner's permit?",
      "My son is 15.5; what does he need to apply for a learner's permit?",
      "My son is 15 and a half; what does he need to apply for a learner's permit?",
    ],
    [
      'Is a 2.5 hour hike too long for a 6 year old?',
      'Is a two and a half hour hike too long for a 6 year old?',
      'Is a 2.5 hour hike too long for a 6 year old?',
    ],
    // "AM" or "PM" after a day's word against that day's part, either way round (RULE84).
    [
      'Is it safe to drive after taking one Benadryl this morning?',
      'Is it safe to drive after taking one Benadryl this AM?',
      'Is it safe to drive after taking one Benadryl this morning?',
    ],
    [
      'I need my suit for an interview tmrw AM; can a dry cleaner do same-day service?',
      'I need my suit for an interview tomorrow morning; can a dry cleaner do same-day service?',
      'I need my suit for an interview tmrw AM; can a dry cleaner do same-day service?',
    ],
    [
      'Is the market open Saturday evening?',
      'Is the market open Sat PM?',
      'Is the market open Saturday evening?',
    ],
    // Two clauses of one sentence exchanged, the subject said once or twice, either way round (RULE83).
    [
      "I'm left-handed and just starting out on ukulele; should I learn to play it right-handed?",
      "I'm just starting out on ukulele and I'm left-handed; should I learn to play it right-handed?",
      "I'm left-handed and just starting out on ukulele; should I learn to play it right-handed?",
    ],
    [
      "I love playing air hockey with my grandkids and I'm 70; is it good exercise?",
      "I'm 70 and love playing air hockey with my grandkids; is it good exercise?",
      "I love playing air hockey with my grandkids and I'm 70; is it good exercise?",
    ],
    [
      'I wear a size 12 wide and have high arches; which brands of hiking boots fit best?',
      'I have high arches and wear a size 12 wide; which hiking boot brands fit best?',
      'I wear a size 12 wide and have high arches; which hiking boot brands fit best?',
    ],
    [
      "We're moving in June but we've got two cats; how do we ship them?",
      "We've got two cats but we're moving in June; how do we ship them?",
      "We're moving in June but we've got two cats; how do we ship them?",
    ],
    // The speaker first or last in a subject of two, either way round (RULE81).
    [
      'My boyfriend and I are driving to Austin City Limits from Houston; where should we park?',
      'Me and my bf are driving to ACL from Houston; where should we park?',
      'My boyfriend and I are driving to Austin City Limits from Houston; where should we park?',
    ],
    [
      'Can Sarah and I share a locker?',
      'Can me and Sarah share a locker?',
      'Can Sarah and I share a locker?',
    ],
    [
      'Me and my friends want to rent a cabin; any tips?',
      'My friends and I want to rent a cabin; any tips?',
      'Me and my friends want to rent a cabin; any tips?',
    ],
    [
      'so me and my wife are moving to a condo, what should we know?',
      'so my wife and I are moving to a condo, what should we know?',
      'so me and my wife are moving to a condo, what should we know?',
    ],
    // A state's code against its name followed by "state", either way round (RULE76); a code
    // followed by "state" already is read as before.
    [
      "I'm in Washington state and my lawn is full of molehills; are mole traps legal?",
      "I'm in WA and my lawn is full of molehills; are mole traps legal?",
      "I'm in Washington state and my lawn is full of molehills; are mole traps legal?",
    ],
    [
      'How much is a name change in WA?',
      'How much is a name change in Washington State?',
      'How much is a name change in WA?',
    ],
    [
      "I'm in Washington state; what are the setback rules for a dry well?",
      "I'm in WA state; what are the setback rules for a dry well?",
      "I'm in Washington state; what are the setback rules for a dry well?",
    ],
    // An asked "and" stays where the cached question writes "and" beside an "&" in a name.
    [
      "I'm an O&M instructor; what's the difference between two-point touch and constant contact?",
      "I'm an O&M instructor; could you explain two-point touch and constant contact?",
      "I'm an O&M instructor; could you explain two-point touch and constant contact?",
    ],
    // Canada's and Australia's postal codes, in capitals, toward the name the cached one writes (RULE65).
    [
      "I'm a landlord in Toronto, Ontario; can I install cameras in a shared hallway?",
      "I'm a landlord in Toronto, ON; can I install cameras in a shared hallway?",
      "I'm a landlord in Toronto, Ontario; can I install cameras in a shared hallway?",
    ],
    [
      'Do I need a fishing licence in New South Wales?',
      'Do I need a fishing licence in NSW?',
      'Do I need a fishing licence in New South Wales?',
    ],
    // "dog" the verb is "chase" first; between the same words it is read so (RULE62).
    [
      'Why does my puppy chase the cat?',
      'Why does my puppy dog the cat?',
      'Why does my puppy chase the cat?',
    ],
    ['Are there any fees?', "Are they're any fees?", 'Are there any fees?'],
    [
      'What happens to my tandem jump if the weather is cloudy?',
      'What happens to my tandem jump if the wether is cloudy?',
      'What happens to my tandem jump if the weather is cloudy?',
    ],
    [
      'I used a sprayer and there are drips; how do I get them off?',
      'I used a sprayer and there are drips; how do I get them of?',
      'I used a sprayer and there are drips; how do I get them off?',
    ],
    // A US state's postal code in capitals, either way round; "&" for "and".
    [
      'What is the sales tax in California?',
      'What is the sales tax in CA?',
      'What is the sales tax in California?',
    ],
    [
      'Best hikes in CO for beginners?',
      'Best hikes in Colorado for beginners?',
      'Best hikes in CO for beginners?',
    ],
    ['Moving from New York to Ohio', 'Moving from NY to OH', 'Moving from New York to Ohio'],
    [
      'My wife and I both work; do we file jointly?',
      'My wife & I both work; do we file jointly?',
      'My wife and I both work; do we file jointly?',
    ],
    ['Is salt & pepper enough?', 'Is salt and pepper enough?', 'Is salt & pepper enough?'],
    // "DC" and "Washington, D.C.", either way round.
    [
      'What is the income tax rate in Washington, D.C.?',
      'What is the income tax rate in DC?',
      'What is the income tax rate in Washington, D.C?',
    ],
    ['Where can I park in DC?', 'Where can I park in Washington, D.C.?', 'Where can I park in DC.?'],
    ['Best museums in DC w/ kids?', 'Best museums in Washington DC w/ kids?', 'Best museums in DC w/ kids?'],
    // A price with a currency sign on one side and the currency's name on the other, either way round.
    [
      'What is the best microphone for podcasting under 100 dollars?',
      'What is the best mic for podcasting under $100?',
      'What is the best microphone for podcasting under 100 dollars?',
    ],
    [
      'Best binoculars for birding under $200?',
      'Best binoculars for birding under 200 dollars?',
      'Best binoculars for birding under $200?',
    ],
    [
      'Which digital piano is best for about 1,000 dollars?',
      'Which digital piano is best for about $1k?',
      'Which digital piano is best for about 1,000 dollars?',
    ],
    ['Is a €50 gift too much?', 'Is a 50 euro gift too much?', 'Is a €50 gift too much?'],
    ['Is £20 enough for a taxi?', 'Is 20 quid enough for a taxi?', 'Is £20 enough for a taxi?'],
    // Everyday short forms on the abbreviation list, either way round.
    [
      'How do I renew my food handler certificate in Ohio?',
      'How do I renew my food handler cert in Ohio?',
      'How do I renew my food handler certificate in Ohio?',
    ],
    [
      'Where can I buy cheap tix for a Sixers game in Philly?',
      'Where can I buy cheap tickets for a Sixers game in Philadelphia?',
      'Where can I buy cheap tix for a Sixers game in Philly?',
    ],
    [
      'Is decaf ok while breastfeeding?',
      'Is decaffeinated ok while breastfeeding?',
      'Is decaf ok while breastfeeding?',
    ],
    // A unit written short right after a figure (FIGURE_UNITS), either way round.
    [
      'What gauge wire does a 240 volt dryer need?',
      'What gauge wire does a 240V dryer need?',
      'What gauge wire does a 240 volt dryer need?',
    ],
    [
      'Is a 1500W space heater safe overnight?',
      'Is a 1500-watt space heater safe overnight?',
      'Is a 1500W space heater safe overnight?',
    ],
    [
      'Can a 30 amp breaker run my kiln?',
      'Can a 30A breaker run my kiln?',
      'Can a 30 amp breaker run my kiln?',
    ],
    ['Which 10 inch skillet is best?', 'Which 10 in skillet is best?', 'Which 10 inch skillet is best?'],
    // Or right after "how many" or "per", a short form's dot with it (RULE56).
    [
      'How many inches should a range hood be above the stove?',
      'How many in. should a range hood be above the stove?',
      'How many inches should a range hood be above the stove?',
    ],
    [
      'How many in. should a range hood be above the stove?',
      'How many inches should a range hood be above the stove?',
      'How many in. should a range hood be above the stove?',
    ],
    [
      'Stump grinding cost per inch of diameter?',
      'Stump grinding cost per in. of diameter?',
      'Stump grinding cost per inch of diameter?',
    ],
    [
      'How many decibels is a gas leaf blower?',
      'How many dB is a gas leaf blower?',
      'How many decibels is a gas leaf blower?',
    ],
    // More short forms (RULE57).
    [
      'What is a good budget microphone for recording vocals?',
      "What's a good budget mic for recording vox?",
      'What is a good budget microphone for recording vocals?',
    ],
    [
      'French drain or sump pump for a wet basement?',
      'French drain or sump pump for a wet bsmt?',
      'French drain or sump pump for a wet basement?',
    ],
    // "x" between two figures, "by" between the same two on the other side (RULE56).
    [
      'I am building a pergola about 12 by 16 feet; what size beams should I use?',
      'I am building a pergola about 12x16 ft; what size beams should I use?',
      'I am building a pergola about 12 by 16 feet; what size beams should I use?',
    ],
    [
      'My quail coop is 4 feet by 2 feet; how many birds fit?',
      'My quail coop is 4 ft x 2 ft; how many birds fit?',
      'My quail coop is 4 feet by 2 feet; how many birds fit?',
    ],
    // "a" or "an" for "1" between the same words (RULE67).
    [
      'How many calories does an hour of fencing burn?',
      'How many calories does 1 hour of fencing burn?',
      'How many calories does an hour of fencing burn?',
    ],
    ['Can I drive 1 mile on diesel?', 'Can I drive a mile on diesel?', 'Can I drive 1 mile on diesel?'],
    // WordNet's first-sense synonyms (WORDNET_GROUPS), in the same inflection.
    [
      'Does cold weather aggravate arthritis in the knees?',
      'Does cold weather exacerbate arthritis in the knees?',
      'Does cold weather aggravate arthritis in the knees?',
    ],
    [
      'My landlord disregards every repair request; what can I do?',
      'My landlord ignores every repair request; what can I do?',
      'My landlord disregards every repair request; what can I do?',
    ],
  ])('%s / %s', (cached, asked, aligned) => {
    expect(alignWording(cached, asked)).toBe(aligned);
  });

  it.each([
    // Two English words are two words; two unknown or capitalised ones are names.
    ['What is a good desert in Morocco?', 'What is a good dessert in Morocco?'],
    ['What is the capital of Iran?', 'What is the capital of Iraq?'],
    // "c" is a cup only after a figure, a number only with the same figure (RULE141).
    ['How much vitamin C is in a cup of orange juice?', 'How much vitamin C is in 1 c of orange juice?'],
    ['Is a #2 pencil softer than HB?', 'Is a no. 3 pencil softer than HB?'],
    ['Is there no. 2 bus on Sundays?', 'Is there no 2 bus on Sundays?'],
    // A name's plural is another number; a capitalised word is mended only toward a known name,
    // or toward a capitalised word of the list between the same words (RULE64).
    ['What is the weather like in the Dakotas in May?', 'What is the weather like in Dakota in May?'],
    ['Does Windows support my printer?', 'Does Windos 11 support my printer?'],
    ['Is busking allowed in Central Park?', 'Is busking allowed in the Centrl Park?'],
    // "how much is" followed by more than the priced thing asks something else.
    ['How much does a new snowmobile cost?', 'How much is a new snowmobile engine?'],
    [
      'How much does a full passport renewal cost?',
      'How much is just the expedited fee for a passport renewal?',
    ],
    // An acronym or a brand is not written as a name ("apr" is April's abbreviation to WordNet).
    ['What is APR?', 'What is APY?'],
    ['How do I reset an iPod?', 'How do I reset an iPad?'],
    ['How do I get an e-visa for Indian citizens?', 'How do I get an e-visa for India?'],
    ['How do I get my tax return filled?', 'How do I get my tax return filed?'],
    // RULE150 reads no typo of a word no list has in one consonant for another, an acronym, a
    // plural, a letter put in at the end, a short word, or a word between other neighbours.
    ['Is it a roguelike?', 'Is it a roguelite?'],
    ['Does code require GFCI protection?', 'Does code require AFCI protection?'],
    ['Which Beyblade should I buy first?', 'Which Beyblades should I buy first?'],
    ['How do I geocache in winter?', 'How do I geocached in winter?'],
    ['Is the Vizo worth it?', 'Is the Vize worth it?'],
    ["What does 'Reserva' mean on a wine label?", "What does 'Riserva' mean on a wine label?"],
    // RULE154: "deg" before C or F stays a temperature's, "b/w" is not "w/".
    ['Bake at 180 deg C?', 'Bake at 180 degrees?'],
    ['Is it a b/w print?', 'Is it a print with a frame?'],
    // RULE151: "pound" is a weight, another value another price, another ordinal another century.
    ['Can I check a 30 pound bag on the plane?', 'Can I check a £30 bag on the plane?'],
    ['Is 30 pounds enough for a weekly shop?', 'Is £40 enough for a weekly shop?'],
    ['What did people wear in the 17th c.?', 'What did people wear in the 18th century?'],
    ['Is rebase safe on main?', 'Is it safe to rebsae on main?'],
    ['Table for two', 'Table for four'],
    ['Table for two', 'Table for 4'],
    ['Is 2nd class worth it?', 'Is first class worth it?'],
    ['Should I buy an apple or a pear?', 'Should I buy a pear or an orange?'],
    // First senses only between the same words, never a closed kind, quoted, or a name.
    ['How long is a minute of rest?', 'How long is a second of rest?'],
    ['How do I link my accounts?', 'How do I connect to my accounts?'],
    ["What does 'blurry' mean?", "What does 'fuzzy' mean?"],
    ['Is the Link app free?', 'Is the Connect app free?'],
    // A rare word only between the same words, never a name, and never one WordNet knows.
    ['Is the water warm in May?', 'Is the watter really warm in May?'],
    ['Where is Lake Watter?', 'Where is Lake Water?'],
    ['What makes an espresso grind finer?', 'What makes an espresso grind finner?'],
    // Another entity, number, operation or direction is not a way of writing.
    ['Can I grow lemons in Seattle?', 'Can I grow lemons in the PNW?'],
    ['How do I buy a car?', 'How do I sell a car?'],
    ['How many yen is 50 dollars?', 'How many dollars is 50 yen?'],
    ['Convert 10 miles to km', 'Convert 20 miles to km'],
    ['How many mg of caffeine in coffee?', 'How many mcg of caffeine in coffee?'],
    // Another size, a preposition after "how many", another unit.
    ['What size skylight suits a 12 by 14 foot room?', 'What size skylight suits a 12x16 foot room?'],
    ['Can I bake it in a 9-by-13-inch pan?', 'Can I bake it in a 9x13 pan?'],
    // A short form written as the other side's word too is that word ("fed" the verb).
    ['I fed my dog chocolate; is that a federal matter?', 'I fed my dog chocolate; is that a fed matter?'],
    ['How many inches are in the box?', 'How many in the box are broken?'],
    ['How many watts does it draw?', 'How many A does it draw?'],
    ['Which foods contain gluten?', 'Which foods do not contain gluten?'],
    // A postal code only in capitals, and only for the state the cached question names; LA is Los Angeles.
    ['Is Indiana cold in winter?', 'Is it cold in winter?'],
    ['Which parks in Maine allow dogs?', 'Which parks in me allow dogs?'],
    ['Flights from Louisiana to Texas', 'Flights from LA to Texas'],
    ['What is the sales tax in California?', 'What is the sales tax in TX?'],
    ['Is it cold in Manitoba in May?', 'Is it cold in SK in May?'],
    ['Which apps work in Ontario?', 'Which apps work on Ontario?'],
    // A price only with the same value and the same currency; pounds may be a weight.
    ['Best blender under $100?', 'Best blender under 150 dollars?'],
    ['Best blender under $100?', 'Best blender under 100 euros?'],
    ['Is a 30 pound bag of dog food worth it?', 'Is a £30 bag of dog food worth it?'],
    ['Is $20 or 20 dollars more polite to write?', 'Is 20 dollars or $20 polite to write?'],
    // A unit after a figure only beside the same figure and the same unit: "in" and "a" stay words.
    ['Can a 30 amp breaker run my kiln?', 'Can a 20A breaker run my kiln?'],
    ['Is a 1500W heater enough?', 'Is a 1500 volt heater enough?'],
    ['Can I seat 4 inches apart?', 'Can I seat 4 in a booth?'],
    ['Can I fit 3 in a car?', 'Can I fit 3 a car with a rack?'],
    // WordNet's groups only where both words' most frequent sense is one synset, in one inflection,
    // and its first senses only where SemCor tagged the shared one: a bike is a bicycle first, a
    // motorcycle second, never tagged so; "aggravates" is not "exacerbate".
    ['What is the best bike for commuting?', 'What is the best motorcycle for commuting?'],
    ['Does cold weather aggravate arthritis?', 'Cold weather exacerbates arthritis, right?'],
    // A listed word only where its partner stands between the same words, never inside a phrase
    // the other side lacks ("out of" is not "out off"), never quoted, never a name, and never a
    // pair the list leaves out ("flour" / "flower").
    ['How can I get a stain off leather?', 'How can I get a stain out of leather?'],
    ["What does 'affect' mean?", "What does 'effect' mean?"],
    ['What does "affect" mean?', 'What does "effect" mean?'],
    ['Is the Capitol open on Sundays?', 'Is the Capital open on Sundays?'],
    ['How should I store flour?', 'How should I store flowers?'],
    ['Do baby gates work for dogs too?', 'Do baby gates work for cats to?'],
    // Pairs a near miss could set in one place stay out of the list (RULE70).
    ['What is the best steel for a chef knife?', 'What is the best steal for a chef knife?'],
    ['Does filing a tooth hurt?', 'Does filling a tooth hurt?'],
    ['Is a trail run good training?', 'Is a trial run good training?'],
    ['How do I treat saddle sores on a mule?', 'How do I treat soars on a mule?'],
    // Other neighbours: "plain" stays "plain" (RULE134).
    ['Will they hold the plane for me?', 'Will they serve plain yogurt for me?'],
    // Left out by RULE137 as RULE70 left its pairs out, quoted, and other neighbours.
    ['How much is the fare to the city?', 'How much is the fair to the city?'],
    ['Can I sail my boat in winter?', 'Can I sale my boat in winter?'],
    ['What does "ail" mean?', 'What does "ale" mean?'],
    ['Is ginger ale gluten free?', 'Is root ail gluten free?'],
    // Another count, another period, a multiplier of something else (RULE146).
    ['I ride twice a week; which saddle should I buy?', 'I ride 3x a week; which saddle should I buy?'],
    ['I ride twice a week; which saddle should I buy?', 'I ride 2x a day; which saddle should I buy?'],
    ['Is an SSD twice as fast as a hard drive?', 'Is an SSD 2x as fast as a hard drive?'],
    // An item changed, a "from ... to" around a list, a sequence (RULE145).
    [
      'I take iron, vitamin D and calcium every day; which can I take together?',
      'I take calcium, vitamin C and iron every day; which can I take together?',
    ],
    ['How do I get from Paris, Lyon and Nice to Rome?', 'How do I get from Rome to Paris, Lyon and Nice?'],
    ['First sand, then prime and paint: is that right?', 'First paint, then prime and sand: is that right?'],
    // Another age, months against years, a bare figure (years) against months, a duration (RULE144).
    // An age said of someone against one before a noun (RULE144).
    [
      'My daughter is 12 and wants to quit her swim team; should I let her?',
      'My 12-year-old daughter wants to quit her swim team; should I let her?',
    ],
    ['My son is 9 years old; can he ride a bike?', 'My son is 10 years old; can he ride a bike?'],
    ['My son is 9 months old; can he eat eggs?', 'My son is 9 years old; can he eat eggs?'],
    ['My son is 9 months old; can he eat eggs?', 'My son is 9; can he eat eggs?'],
    ['My baby is 6 months old; can she eat eggs?', 'I stopped nursing in 6 months; can she eat eggs?'],
    // Another thing, another time, what it is good for or could be used for, a "for" with more
    // after it (RULE143).
    ['What is the purpose of a heat gun?', 'What is a heat sink used for?'],
    ['What was the purpose of a chamber pot?', 'What is a chamber pot used for?'],
    ['What is the purpose of turmeric?', 'What is turmeric good for?'],
    ['What is the purpose of baking soda?', 'What can baking soda be used for?'],
    ['What is the purpose of a trellis for roses?', 'What is a trellis for roses?'],
    // Left out by RULE142 (a near miss a writer could set), and other neighbours: "the right dose
    // of melatonin" is a dose.
    ['Which county has the lowest taxes?', 'Which country has the lowest taxes?'],
    ['Is it a causal relationship?', 'Is it a casual relationship?'],
    ['What is the right dose of melatonin for adults?', 'What does the right melatonin do for adults?'],
    ['Was the cow bred in June?', 'Was the bread in June?'],
    // An English word or a name with "ys" stays (RULE139).
    ['How many dies are left in the set?', 'How many days are left in the set?'],
    ['Are the Maries coming to dinner?', 'Are the Marys coming to dinner?'],
    // A short form only of its word's first letter and letters in order, no English word, in lower
    // case, not a plural, not after a figure, between the same words (RULE72).
    ['Which ascensores should I ride?', 'Which ascensor should I ride?'],
    ['What is the Std size of a door?', 'What is the standard size of a door?'],
    ['Is a 5 mbps line enough?', 'Is a 5 megabits line enough?'],
    ['How many points is a touchdown worth?', 'How many pts does a touchdown get?'],
    ['Is my boat seaworthy?', 'Is my bot seaworthy?'],
    // A name's short form at most half as long, no English word, both names, between the same
    // words (RULE165): "Niger" is not "Nigeria".
    ['Is Niger safe to visit?', 'Is Nigeria safe to visit?'],
    ['Can I drive in Austria with a US license?', 'Can I drive in Australia with a US license?'],
    ['What is the capital of Mali?', 'What is the capital of Malawi?'],
    ['What does Pichu evolve into?', 'What does Pikachu evolve into?'],
    ['Where is the Mass State House?', 'Where is the Massachusetts State House?'],
    ['Is the Melb office open?', 'Is the melbourne office open?'],
    // "a" for "1" only between the same words: "1 2" is a half, "a few" is not one.
    ['Add a half cup of sugar?', 'Add 1/2 cup of sugar?'],
    ['Can I rest a few days?', 'Can I rest 1 day?'],
    // "more" before the opposite, "less" before the same word or one of its meaning (RULE77).
    ['Which is more expensive, a foam or a latex topper?', 'Which is cheaper, a foam or a latex topper?'],
    ['Which stroller is less risky to fold?', 'Which stroller is riskier to fold?'],
    ['What is the least healthy sake to drink?', 'What is the healthiest sake to drink?'],
    ['Which blender is less quiet?', 'Which blender is quieter?'],
    ['Should I add 3 more cups of rice?', 'Should I add 3 cups of rice?'],
    // A figure glued to a hyphen or a sign, or where the cached "for" has other neighbours (RULE78).
    ['Plan a day trip for a group in Boston.', 'Plan a 4-day trip for a group in Boston.'],
    ['Is the fee for lockers normal?', 'Is the fee $4 lockers normal?'],
    ['Which skateboard is best for a beginner?', 'Which 4 skateboards are best for a beginner?'],
    // A place's short name beside another name, another place, or the same form on both sides (RULE79).
    ['Are the Las Vegas Golden Knights good this year?', 'Are the Vegas Golden Knights good this year?'],
    ['Is it hot in Reno in June?', 'Is it hot in Vegas in June?'],
    ['Is it hot in Las Vegas in June?', 'Is it hot in Las Vegas in July?'],
    // Another price, another currency, or words against a figure with the name (RULE80).
    ['Is a day pass eighty dollars?', 'Is a day pass $90?'],
    ['Is a day pass eighty dollars?', 'Is a day pass €80?'],
    ['Is a day pass eighty dollars?', 'Is a day pass 80 dollars?'],
    // Another half of the day, another hour, an hour a part of the day does not hold (RULE82).
    ['Is the gym open at 6 in the morning?', 'Is the gym open at 6 pm?'],
    ['Is the gym open at 7 in the evening?', 'Is the gym open at 7 am?'],
    ['Is the gym open at 3 in the afternoon?', 'Is the gym open at 4 pm?'],
    ['Is the gym open at 2 at night?', 'Is the gym open at 2 am?'],
    ['Should I take 2 pills in the morning?', 'Should I take 2 pills at 2 am?'],
    // A clipped form the cached question does not spell out (RULE111).
    ['How many calories are in a plantain?', 'How many carbs are in a plantain?'],
    // A possessive against a plural, a capitalised possessive (RULE110).
    ["Is my toddler's shoe too small?", 'Is my todlers shoe too small?'],
    ["Is Avogadro's number exact?", "Is Avagadro's number exact?"],
    // Another height, feet past 8, degrees of another scale (RULE109).
    ["I'm 5 foot 2; what ice axe length?", "I'm 6'2; what ice axe length?"],
    ['Is a 12 foot 6 canoe too long?', "Is a 12'6 canoe too long?"],
    ['Bake at 180 degrees Fahrenheit?', 'Bake at 180 deg C?'],
    // Another compass point, a point in lowercase, a letter that names no point (RULE88).
    [
      'My flat has a south-facing window; which herbs grow?',
      'My flat has a N-facing window; which herbs grow?',
    ],
    ['Which way is west on a trail map?', 'Which way is w on a trail map?'],
    ['Can I take vitamin D every day?', 'Can I take vitamin E every day?'],
    // Another number, a quarter, a half alone (RULE85).
    ['My son is 15 and a half; can he get a permit?', 'My son is 16.5; can he get a permit?'],
    ['My son is 15 and a half; can he get a permit?', 'My son is 15.25; can he get a permit?'],
    ['Is half an hour enough to boil eggs?', 'Is 0.5 hours enough to boil eggs?'],
    // Another part of the day, or "AM" after no day's word (RULE84).
    [
      'Is it safe to drive after taking one Benadryl this afternoon?',
      'Is it safe to drive after taking one Benadryl this AM?',
    ],
    ['Is the market open Friday morning?', 'Is the market open Friday PM?'],
    ['Is the market open in the morning?', 'Is the market open in the AM?'],
    // Another subject in a part, "and then", another joining word, another word in a part (RULE83).
    ["I'm 70 and my wife is 65; can we both join?", "My wife is 70 and I'm 65; can we both join?"],
    ['I eat and then swim; is that safe?', 'I swim and then eat; is that safe?'],
    [
      "I'm 70 and love air hockey; is it good exercise?",
      "I love air hockey but I'm 70; is it good exercise?",
    ],
    [
      "I'm 70 and love air hockey; is it good exercise?",
      "I love ice hockey and I'm 70; is it good exercise?",
    ],
    // Another person before another word, more than three words (RULE81).
    ['My husband and I want a cabin.', 'Me and my wife are renting a cabin.'],
    ['My friends from work and I want a cabin.', 'Me and my friends from work want a cabin.'],
  ])('leaves %s / %s as asked', (cached, asked) => {
    expect(alignWording(cached, asked)).toBe(asked);
  });

  it.each(Object.getOwnPropertyNames(Object.prototype))(
    'reads "%s" as any other word (its word lists have no Object.prototype behind them)',
    (word) => {
      const cached = `Why does my parent ${word} fail in JavaScript?`;
      expect(alignWording(cached, `Why does my parent ${word} fail in JS?`)).toBe(cached);
      expect(alignWording(cached, `Why does my ${word} fail in Java?`)).toBe(
        `Why does my ${word} fail in Java?`,
      );
      // The word only on the cached side: looked up as a contraction, an abbreviation, a spelling.
      expect(alignWording(cached, 'Why does my parent class fail in Java?')).toBe(
        'Why does my parent class fail in Java?',
      );
    },
  );
});
