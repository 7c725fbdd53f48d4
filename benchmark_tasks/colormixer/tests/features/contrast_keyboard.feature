Feature: Contrast ratios and keyboard control

  Background:
    Given the app is open

  @R4
  Scenario: Initial contrast values
    Then the contrast against white is "6.00" rated "AA"
    And the contrast against black is "3.50" rated "fail"

  @R4
  Scenario Outline: Contrast of several colours
    When I apply the hex code "<hex>" with Enter
    Then the contrast against white is "<white>" rated "<white_rating>"
    And the contrast against black is "<black>" rated "<black_rating>"

    Examples:
      | hex     | white | white_rating | black | black_rating |
      | #FFFFFF | 1.00  | fail         | 21.00 | AA           |
      | #777777 | 4.48  | fail         | 4.69  | AA           |
      | #0C8855 | 4.50  | fail         | 4.67  | AA           |
      | #3377BB | 4.67  | AA           | 4.50  | fail         |

  @R4
  Scenario: Contrast follows the sliders
    When I set the sliders to 255, 0, 0
    Then the contrast against white is "4.00" rated "fail"
    And the contrast against black is "5.25" rated "AA"

  @R5
  Scenario: Arrow keys on a focused slider step by one
    When I press ArrowRight 3 times on the red slider
    And I press ArrowLeft 1 times on the blue slider
    Then the sliders show 54, 102, 152
    And the hex code is "#366698"

  @R5
  Scenario: Arrow keys stop at the ends of the range
    When I set the sliders to 0, 128, 255
    And I press ArrowLeft 2 times on the red slider
    And I press ArrowUp 2 times on the blue slider
    Then the sliders show 0, 128, 255
    And the hex code is "#0080FF"

  @R5
  Scenario: The i key inverts the colour
    When I press "i" on the page
    Then the sliders show 204, 153, 102
    And the hex code is "#CC9966"
    And the swatch colour is "rgb(204, 153, 102)"
    And the contrast against white is "2.53" rated "fail"

  @R5
  Scenario: Inverting twice restores the colour, also from a focused slider
    When I press "I" on the page
    And I press "i" on the green slider
    Then the sliders show 51, 102, 153
    And the hex code is "#336699"

  @R5
  Scenario: Typing i into the hex input does not invert
    When I type "i" into the hex input
    Then the hex input contains "i"
    And the hex code is "#336699"
