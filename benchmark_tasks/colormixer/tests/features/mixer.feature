Feature: Mixing a colour with sliders and hex codes

  Background:
    Given the app is open

  @R1
  Scenario: Sliders and labels start at the initial colour
    Then the sliders show 51, 102, 153

  @R1
  Scenario: Every slider is a 0 to 255 range with step 1
    Then every slider has min "0", max "255" and step "1"

  @R1
  Scenario Outline: Moving one slider updates its label only
    When I set the <channel> slider to <value>
    Then the <channel> slider and its label show <value>
    And the sliders show <r>, <g>, <b>

    Examples:
      | channel | value | r   | g   | b   |
      | red     | 0     | 0   | 102 | 153 |
      | green   | 255   | 51  | 255 | 153 |

  @R1
  Scenario: Labels follow the input event while dragging
    When I drag the red slider to 200 firing only input events
    Then the red slider and its label show 200

  @R2
  Scenario: Hex code and swatch show the initial colour
    Then the hex code is "#336699"
    And the swatch colour is "rgb(51, 102, 153)"

  @R2
  Scenario Outline: Hex code is upper case and zero padded
    When I set the sliders to <r>, <g>, <b>
    Then the hex code is "<hex>"
    And the swatch colour is "rgb(<r>, <g>, <b>)"

    Examples:
      | r   | g   | b   | hex     |
      | 0   | 0   | 0   | #000000 |
      | 10  | 171 | 205 | #0AABCD |

  @R3
  Scenario Outline: A valid hex code sets the sliders
    When I apply the hex code "<typed>" with Enter
    Then the sliders show <r>, <g>, <b>
    And the hex code is "<hex>"
    And the swatch colour is "rgb(<r>, <g>, <b>)"
    And the hex input contains "<hex>"
    And the hex error is empty

    Examples:
      | typed   | r   | g   | b   | hex     |
      | #FF8800 | 255 | 136 | 0   | #FF8800 |
      | 3a7     | 51  | 170 | 119 | #33AA77 |
      | abcdef  | 171 | 205 | 239 | #ABCDEF |

  @R3
  Scenario: Surrounding whitespace is ignored and the Apply button works
    When I apply the hex code "  #12aB9c  " with the Apply button
    Then the sliders show 18, 171, 156
    And the hex code is "#12AB9C"

  @R3
  Scenario Outline: An invalid hex code is refused
    When I apply the hex code "<typed>" with Enter
    Then the hex error is "Invalid hex code. Use #RRGGBB or #RGB."
    And the sliders show 51, 102, 153
    And the hex code is "#336699"
    And the swatch colour is "rgb(51, 102, 153)"
    And the hex input contains "<typed>"

    Examples:
      | typed    |
      | #12345   |
      | #GG0000  |
      | ##123456 |
      | #12 456  |

  @R3
  Scenario: Applying an empty hex input is refused
    When I apply the hex code "" with the Apply button
    Then the hex error is "Invalid hex code. Use #RRGGBB or #RGB."
    And the hex code is "#336699"

  @R3
  Scenario: A valid code after an invalid one clears the error
    When I apply the hex code "#XYZ" with Enter
    And I apply the hex code "#000080" with Enter
    Then the hex error is empty
    And the sliders show 0, 0, 128
